{#- Whether an existing table has a column (case-insensitive), read from dbt's listing of
    the schema when it can describe the table (no statement), else from one `describe`.
    For a package model that gained a column: its own SQL reads the column from
    {{ this }} only once the table has it (its on_schema_change adds it). -#}
{% macro _relation_has_column(relation, column_name) -%}
  {%- set listed = spark_incremental._managed_exists(relation) -%}
  {%- if listed is none -%}
    {{- return(false) -}}
  {%- endif -%}
  {%- set described = spark_incremental._managed_listed_describe(listed) -%}
  {%- set names = described.columns | map(attribute=0) | list if described is not none
      else adapter.get_columns_in_relation(listed) | map(attribute='name') | list -%}
  {{- return(column_name | lower in names | map('lower') | list) -}}
{%- endmacro %}

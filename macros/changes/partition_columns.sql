{#- Lower-case partition column names of an existing table, in partition order. -#}
{% macro _partition_columns(relation) -%}
  {%- set found = [] -%}
  {%- set state = namespace(section=false) -%}
  {%- for row in spark_incremental._fetch_rows('describe table ' ~ relation) -%}
    {%- set name = (row[0] or '') | trim -%}
    {%- if name == '# Partition Information' -%}
      {%- set state.section = true -%}
    {%- elif state.section and (name == '' or (name.startswith('#') and name != '# col_name')) -%}
      {%- set state.section = false -%}
    {%- elif state.section and name != '# col_name' -%}
      {%- do found.append(name | lower) -%}
    {%- endif -%}
  {%- endfor -%}
  {{- return(found) -}}
{%- endmacro %}

{% macro refresh_plan_relation() -%}
  {{- return(spark_incremental._relation_for_model('spark_incremental_refresh_plan')) -}}
{%- endmacro %}


{#- Create the plan log when it does not exist yet (the hook runs before the package's
    plan model does). The relation goes into dbt's relation cache, so the plan model and
    the materializations of this invocation see it. -#}
{% macro _ensure_refresh_plan_table() -%}
  {%- set relation = spark_incremental.refresh_plan_relation() -%}
  {%- if not spark_incremental._relation_exists(relation) -%}
    {%- set columns = spark_incremental._refresh_plan_columns() -%}
    {%- set ddl -%}
      create table if not exists {{ relation }} (
        {%- for name, type in columns %}
          {{ name }} {{ type }}{{ ',' if not loop.last }}
        {%- endfor %}
      )
      using parquet
      partitioned by (batch_id)
    {%- endset -%}
    {%- do adapter.execute('create schema if not exists ' ~ relation.schema, fetch=false) -%}
    {%- do adapter.execute(ddl, fetch=false) -%}
    {%- do adapter.cache_added(relation) -%}
  {%- endif -%}
  {{- return(relation) -}}
{%- endmacro %}

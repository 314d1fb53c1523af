{#- Create the manifest log when it does not exist yet: a user may run a single
    managed_incremental model, or the hook, before the package's models ever ran. -#}
{% macro ensure_manifest_log() -%}
  {%- set relation = spark_incremental.manifest_log_relation() -%}
  {%- if not spark_incremental._relation_exists(relation) -%}
    {%- do adapter.execute('create schema if not exists ' ~ relation.schema, fetch=false) -%}
    {%- do adapter.execute(spark_incremental._manifest_create_sql(relation), fetch=false) -%}
    {#- tell dbt's relation cache, so later existence checks in this run see it -#}
    {%- do adapter.cache_added(relation.incorporate(type='table')) -%}
  {%- endif -%}
  {{- return(relation) -}}
{%- endmacro %}


{% macro _manifest_create_sql(relation) -%}
  {%- set columns = spark_incremental._manifest_columns() -%}
create table if not exists {{ relation }} (
  {%- for name, type in columns %}
    {{ name }} {{ type }}{{ ',' if not loop.last }}
  {%- endfor %}
)
using parquet
options ('partitionOverwriteMode' = 'dynamic')
partitioned by (batch_id)
{%- endmacro %}

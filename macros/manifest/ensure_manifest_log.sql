{#- Create the manifest log when it does not exist yet: a user may run a single
    managed_incremental model, or the hook, before the package's models ever ran. A view
    in its place stops the run, naming every view among the package's tables
    (_package_views_refusal). -#}
{% macro ensure_manifest_log() -%}
  {%- set relation = spark_incremental.manifest_log_relation() -%}
  {%- set found = adapter.get_relation(database=relation.database, schema=relation.schema,
                                       identifier=relation.identifier) -%}
  {%- if found is not none and found.is_view -%}
    {%- do exceptions.raise_compiler_error(spark_incremental._package_views_refusal()) -%}
  {%- endif -%}
  {%- if found is none -%}
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

{#- is_incremental() for managed_incremental models (dbt's own is_incremental() is always
    false in a custom materialization). True when this run writes incrementally: the
    target exists, is a table, this is not a --full-refresh, and the run is not a build
    (first build, immutable build-once, full_mutation refresh, changed mutability type
    or config). For the package's append materialization (the quarantine): the table
    exists and this is not a --full-refresh. For models with any other materialization
    it is dbt's is_incremental(). -#}
{% macro is_incremental() -%}
  {{- return(adapter.dispatch('is_incremental', 'spark_incremental')()) -}}
{%- endmacro %}


{% macro default__is_incremental() -%}
  {%- if not spark_incremental._can_query() -%}
    {{- return(false) -}}
  {%- endif -%}
  {%- if model.config.materialized == 'spark_incremental_append' -%}
    {{- return(spark_incremental._append_is_incremental(adapter.get_relation(
        database=this.database, schema=this.schema, identifier=this.identifier))) -}}
  {%- endif -%}
  {%- if model.config.materialized != 'managed_incremental' -%}
    {{- return(dbt.is_incremental()) -}}
  {%- endif -%}
  {{- return(spark_incremental._managed_run_plan().plan.is_incremental) -}}
{%- endmacro %}

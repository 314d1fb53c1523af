{#- Materialization for the package's append-only state table (the quarantine): what
    dbt's incremental materialization with the append strategy does, in one statement
    instead of three (dbt's temporary view, describe and insert), and none in a run that
    brings the model nothing new (is_run_with_new_events, the one rule; the model selects
    nothing then). Appends `insert into ... by name select * from (the model's query)`:
    columns are matched by name, so a change of the query's columns fails with Spark's
    error naming both column lists instead of shifting values between columns. Built
    (create table as) when the table is missing, or on a --full-refresh the model's
    full_refresh config allows (dropped first), by dbt-spark's create_table_as (file_format and its other table configs). -#}
{% materialization spark_incremental_append, adapter='spark' %}
  {%- set target_relation = this.incorporate(type='table') -%}
  {%- set existing = adapter.get_relation(database=this.database, schema=this.schema, identifier=this.identifier) -%}
  {%- set appends = spark_incremental._append_is_incremental(existing) -%}

  {{ run_hooks(pre_hooks) }}

  {%- if appends and not spark_incremental.is_run_with_new_events(model.name) -%}
    {%- call noop_statement('main', 'skipped: no new events') -%}{%- endcall -%}
  {%- elif appends -%}
    {%- call statement('main') -%}
      insert into table {{ target_relation }} by name
      select * from (
        {{ compiled_code }}
      )
    {%- endcall -%}
  {%- else -%}
    {%- if existing is not none -%}
      {%- do adapter.drop_relation(existing) -%}
    {%- endif -%}
    {%- call statement('main') -%}
      {{ create_table_as(false, target_relation, compiled_code) }}
    {%- endcall -%}
  {%- endif -%}

  {{ run_hooks(post_hooks) }}

  {{ return({'relations': [target_relation]}) }}
{% endmaterialization %}


{#- Does this run append to the existing table (is_incremental() of the append
    materialization)? It exists, is a table, and this is not a --full-refresh the
    model's full_refresh config allows. existing: the listed relation, or none. -#}
{% macro _append_is_incremental(existing) -%}
  {{- return(existing is not none and existing.is_table and not should_full_refresh()) -}}
{%- endmacro %}

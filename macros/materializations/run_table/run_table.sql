{#- Materialization for the base tables rebuilt by every run (events_in_window,
    sessions_this_run, events_this_run): dbt's table materialization (drop, create table
    as), except that a run with nothing new (the run limits' nothing_new: the model selects
    no row) keeps a table that a run with nothing new built from the same compiled SQL,
    with no statement: such a build records the md5 of its SQL as a table property
    (spark_incremental.empty_sql_md5), read from dbt's start-of-run listing. So after a run
    with nothing new the table is empty, as always, and the next runs with nothing new cost
    it nothing; a run that processes events builds it without the property. Config:
    file_format (default parquet). -#}
{% materialization spark_incremental_run_table, adapter='spark' %}
  {%- set target_relation = this.incorporate(type='table') -%}
  {%- set existing = adapter.get_relation(database=this.database, schema=this.schema, identifier=this.identifier) -%}
  {%- set limits = spark_incremental.return_limits_from_model(
      spark_incremental._relation_for_model('spark_incremental_base_new_event_limits')) -%}
  {%- set nothing_new = limits.nothing_new -%}
  {%- set sql_md5 = local_md5(compiled_code) -%}

  {{ run_hooks(pre_hooks) }}

  {%- if nothing_new and existing is not none and existing.is_table and not should_full_refresh()
        and spark_incremental._listed_md5(existing, 'spark_incremental.empty_sql_md5') == sql_md5 -%}
    {%- call noop_statement('main', 'kept: empty, nothing new') -%}{%- endcall -%}
  {%- else -%}
    {%- if existing is not none -%}
      {%- do adapter.drop_relation(existing) -%}
    {%- endif -%}
    {%- call statement('main') -%}
      create table {{ target_relation }}
      using {{ config.get('file_format') or 'parquet' }}
      {%- if nothing_new %}
      tblproperties ('spark_incremental.empty_sql_md5' = '{{ sql_md5 }}')
      {%- endif %}
      as {{ compiled_code }}
    {%- endcall -%}
  {%- endif -%}

  {{ run_hooks(post_hooks) }}

  {{ return({'relations': [target_relation]}) }}
{% endmaterialization %}

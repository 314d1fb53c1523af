{#- Materialization for the base tables rebuilt by every run (events_in_window,
    sessions_this_run, events_this_run): dbt's table materialization (drop, create table
    as), except in a run with nothing new (the run limits' nothing_new: the model selects
    no row), which builds nothing when it can keep the table, with no statement:
    - a table a run with nothing new built empty from the same compiled SQL is kept (that
      build records the md5 of its SQL as table property spark_incremental.empty_sql_md5);
    - a table of the same shape (spark_incremental.shape_md5, recorded by every build) is
      kept as the last run with new events left it when every node that reads it skips its
      work in a run with nothing new (_run_table_readers_not_skipping): the run then
      changes nothing the package keeps, as if it had not run;
    - otherwise it is built empty, as before.
    A run with new events rewrites a listed table of the same shape that no run with
    nothing new built (no empty_sql_md5) in place, with one insert overwrite: the same
    rows as drop + create table as, one statement fewer (the columns are the same, in the
    same order, as the shape md5 says; written by name all the same, since the listing
    may predate another run's rebuild). Any other table is dropped and created.
    Both properties are read from dbt's start-of-run listing. Config: file_format
    (default parquet); a parquet table is written without dictionary encoding
    (_scratch_table_options: it is read back once, by the run). -#}
{% materialization spark_incremental_run_table, adapter='spark' %}
  {%- set target_relation = this.incorporate(type='table') -%}
  {%- set existing = adapter.get_relation(database=this.database, schema=this.schema, identifier=this.identifier) -%}
  {%- set limits = spark_incremental.return_limits_from_model(
      spark_incremental._relation_for_model('spark_incremental_base_new_event_limits')) -%}
  {%- set nothing_new = limits.nothing_new -%}
  {%- set file_format = config.get('file_format') or 'parquet' -%}
  {%- set sql_md5 = local_md5(compiled_code) -%}
  {%- set shape_md5 = spark_incremental._run_table_shape_md5(model.raw_code, file_format) -%}
  {%- set kept = {'message': none} -%}
  {%- if nothing_new and existing is not none and existing.is_table and not should_full_refresh() -%}
    {%- if spark_incremental._listed_md5(existing, 'spark_incremental.empty_sql_md5') == sql_md5 -%}
      {%- do kept.update({'message': 'kept: empty, nothing new'}) -%}
    {%- elif spark_incremental._listed_md5(existing, 'spark_incremental.shape_md5') == shape_md5 -%}
      {%- set readers = spark_incremental._run_table_readers_not_skipping(model.unique_id) -%}
      {%- if readers | length == 0 -%}
        {%- do kept.update({'message': "kept: the last run's rows, nothing new and no reader runs"}) -%}
      {%- else -%}
        {%- do spark_incremental._log(model.name ~ ': built empty (nothing new): read by '
            ~ readers | join(', ') ~ ', which neither calls is_run_with_new_events() nor skips'
            ~ ' (skip_without_new_events)') -%}
      {%- endif -%}
    {%- endif -%}
  {%- endif -%}

  {{ run_hooks(pre_hooks) }}

  {%- set rewrite = kept.message is none and not nothing_new and existing is not none and existing.is_table
      and not should_full_refresh()
      and spark_incremental._listed_md5(existing, 'spark_incremental.shape_md5') == shape_md5
      and spark_incremental._listed_md5(existing, 'spark_incremental.empty_sql_md5') is none -%}
  {%- if kept.message is not none -%}
    {%- call noop_statement('main', kept.message) -%}{%- endcall -%}
  {%- elif rewrite -%}
    {#- by name: columns in another order (another run rebuilt the table after this
        one's listing) are still written each into its own -#}
    {%- call statement('main') -%}
      insert overwrite table {{ target_relation }} by name
      select * from (
      {{ compiled_code }}
      ) as si_run_table
    {%- endcall -%}
  {%- else -%}
    {%- if existing is not none -%}
      {%- do adapter.drop_relation(existing) -%}
    {%- endif -%}
    {%- call statement('main') -%}
      create table {{ target_relation }}
      using {{ file_format }}
      {{ spark_incremental._scratch_table_options(file_format) }}
      tblproperties (
          'spark_incremental.shape_md5' = '{{ shape_md5 }}'
          {%- if nothing_new %},
          'spark_incremental.empty_sql_md5' = '{{ sql_md5 }}'
          {%- endif %}
      )
      as {{ compiled_code }}
    {%- endcall -%}
  {%- endif -%}

  {{ run_hooks(post_hooks) }}

  {{ return({'relations': [target_relation]}) }}
{% endmaterialization %}

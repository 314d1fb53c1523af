{#- Process a model's missing intervals into its existing table, one statement per batch
    (_replace_rows: each batch replaces exactly its time range, keeping the rows of a
    coarser partition outside it), and record the done intervals in the manifest after
    every batch, so a failed batch leaves the earlier ones recorded and is retried by the
    next run (it is then a gap).
    work: from _interval_batches(); state_row: {mutability_type, last_refresh, state (dict)}
    of the 'managed' manifest row written after each batch, with the done intervals set.
    Returns {rows, partitions, detail, done}. -#}
{% macro _run_interval_batches(model_name, settings, target, sql, target_desc, work, state_row) -%}
  {%- set state = namespace(done=work.done, inserted=0, removed=0, partitions=0) -%}
  {%- set column_list = spark_incremental._managed_column_list(target_desc.columns) -%}
  {%- for batch in work.batches -%}
    {%- do spark_incremental._keep_run_lock() -%}
    {%- set in_batch = settings.time_column ~ ' >= ' ~ spark_incremental._ts_literal(batch[0])
        ~ ' and ' ~ settings.time_column ~ ' < ' ~ spark_incremental._ts_literal(batch[1]) -%}
    {%- set batch_sql -%}
      select
          {{ column_list }}
      from (
          {{ spark_incremental._interval_bind(sql, batch[0], batch[1]) }}
      ) as si_batch
      where {{ in_batch }}
    {%- endset -%}
    {%- set flagged = 'select *, coalesce(' ~ in_batch ~ ', false) as __si_match from ' ~ target -%}
    {%- set result = spark_incremental._replace_rows(target, flagged, batch_sql, target_desc) -%}
    {%- set state.inserted = state.inserted + result.inserted -%}
    {%- set state.removed = state.removed + result.removed -%}
    {%- set state.partitions = state.partitions + (result.partitions or 0) -%}
    {%- set state.done = spark_incremental._ranges_merge(state.done + [batch]) -%}
    {%- set action = 'interval batch ' ~ loop.index ~ '/' ~ work.batches | length ~ ': ['
        ~ spark_incremental._ts_text(batch[0]) ~ ', ' ~ spark_incremental._ts_text(batch[1]) ~ ')' -%}
    {%- set batch_state = dict(state_row.state) -%}
    {%- do batch_state.update({'intervals': spark_incremental._ranges_to_text(state.done)}) -%}
    {%- do spark_incremental._managed_write_state(model_name, state_row.mutability_type, state_row.last_refresh,
        none, none, batch_state, action) -%}
    {%- for relation in result.cleanup -%}
      {%- do adapter.drop_relation(relation) -%}
    {%- endfor -%}
    {%- do spark_incremental._log(model_name ~ ': ' ~ action ~ ' (' ~ result.inserted ~ ' rows in, '
        ~ result.removed ~ ' out' ~ (', ' ~ result.partitions ~ ' partitions rewritten' if result.partitions is not none else '') ~ ')') -%}
  {%- endfor -%}
  {{- return({
      'rows': state.inserted,
      'partitions': state.partitions,
      'detail': 'processed ' ~ work.batches | length ~ ' batch' ~ ('es' if work.batches | length != 1 else '') ~ ' of '
          ~ settings.unit ~ ' intervals in [' ~ spark_incremental._ts_text(work.batches[0][0]) ~ ', '
          ~ spark_incremental._ts_text(work.batches[-1][1]) ~ ')' ~ (' (restated)' if work.restated else '')
          ~ ': ' ~ state.inserted ~ ' rows in, ' ~ state.removed ~ ' out',
      'done': state.done,
  }) -}}
{%- endmacro %}

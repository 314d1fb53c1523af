{#- Process a model's missing intervals into its existing table, one statement per batch
    (_replace_rows: each batch replaces exactly its time range, keeping the rows of a
    coarser partition outside it), and record the done intervals in the manifest after
    every batch, so a failed batch leaves the earlier ones recorded and is retried by the
    next run (it is then a gap). With more than one batch, one query first finds the
    batches with nothing to do (_interval_probe: no rows in the model's output nor in the
    target): they run no statement and are recorded done together, in one state write
    (left to the materialization's final state row when no batch runs).
    work: from _interval_batches(); state_row: {mutability_type, last_refresh, state (dict)}
    of the 'managed' manifest row written after each batch, with the done intervals set.
    Returns {rows, partitions, detail, done}. -#}
{% macro _run_interval_batches(model_name, settings, target, sql, target_desc, work, state_row) -%}
  {%- set state = namespace(done=work.done, inserted=0, removed=0, partitions=0) -%}
  {%- set column_list = spark_incremental._managed_column_list(target_desc.columns) -%}
  {%- set batches = work.batches -%}
  {%- set skipped = '' -%}
  {%- if batches | length > 1 -%}
    {%- set probe = spark_incremental._interval_probe(settings, target, sql, batches) -%}
    {%- set batches = probe.batches -%}
    {%- set skipped = ('; ' ~ probe.skipped ~ ' empty ' ~ settings.unit ~ ' intervals recorded done without a batch')
        if probe.skipped > 0 else '' -%}
    {%- do spark_incremental._log(model_name ~ ': ' ~ probe.with_rows ~ ' of ' ~ probe.intervals ~ ' intervals hold rows; '
        ~ probe.skipped ~ ' empty intervals recorded done without a batch') -%}
    {%- if probe.empty | length > 0 -%}
      {%- set state.done = spark_incremental._ranges_merge(state.done + probe.empty) -%}
      {%- if batches | length > 0 -%}
        {%- set empty_state = dict(state_row.state) -%}
        {%- do empty_state.update({'intervals': spark_incremental._ranges_to_text(state.done)}) -%}
        {%- do spark_incremental._managed_write_state(model_name, state_row.mutability_type, state_row.last_refresh,
            none, none, empty_state, probe.skipped ~ ' empty intervals recorded done without a batch') -%}
      {%- endif -%}
    {%- endif -%}
  {%- endif -%}
  {%- for batch in batches -%}
    {%- do spark_incremental._keep_run_lock() -%}
    {%- set in_batch = spark_incremental._interval_in_range(settings, batch[0], batch[1]) -%}
    {%- set batch_sql = spark_incremental._interval_batch_sql(sql, settings, column_list, batch[0], batch[1]) -%}
    {%- set flagged = 'select *, coalesce(' ~ in_batch ~ ', false) as __si_match from ' ~ target -%}
    {%- set result = spark_incremental._replace_rows(target, flagged, batch_sql, target_desc, in_batch) -%}
    {%- set state.inserted = state.inserted + result.inserted -%}
    {%- set state.removed = state.removed + result.removed -%}
    {%- set state.partitions = state.partitions + (result.partitions or 0) -%}
    {%- set state.done = spark_incremental._ranges_merge(state.done + [batch]) -%}
    {%- set action = 'interval batch ' ~ loop.index ~ '/' ~ batches | length ~ ': '
        ~ spark_incremental._range_text(batch) -%}
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
      'detail': 'processed ' ~ batches | length ~ ' batch' ~ ('es' if batches | length != 1 else '') ~ ' of '
          ~ settings.unit ~ ' intervals in ' ~ spark_incremental._range_text([work.batches[0][0], work.batches[-1][1]])
          ~ (' (restated)' if work.restated else '')
          ~ ': ' ~ state.inserted ~ ' rows in, ' ~ state.removed ~ ' out' ~ skipped,
      'done': state.done,
  }) -}}
{%- endmacro %}

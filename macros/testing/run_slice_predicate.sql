{#- The rows a model's last run wrote, as a SQL predicate on the model's own columns, for
    tests that should check only those rows (see the README, "Testing only what a run
    wrote"). Read at execution time (inside a test, after the run wrote):

      - a model tagged spark_incremental (fed by spark_incremental_base_events_this_run):
        its rows of the sessions this run processed,
        `session_identifier in (select session_identifier from <spark_incremental_base_sessions_this_run>)`;
        after a run with nothing new, the last run's sessions when it kept the run tables
        (none of their readers runs), else empty;
      - any other managed_incremental model: the scope of its last recorded write
        (_managed_written_slice): the whole table after a build, `along > mark` after an
        append or a replaced range, the batches' time ranges after interval batches,
        the whole table where the write has no narrower recorded scope (an upsert or a
        plain append: its keys are not recorded).

    Every row is '1 = 1' and no row '1 = 0' (not true / false, which Spark 4.3 misreads
    in parentheses right after `where`, see _written_slice_sql). Not executing
    (parsing): '1 = 1'. -#}
{% macro run_slice_predicate(model_name, session_column='session_identifier') -%}
  {{- return(adapter.dispatch('run_slice_predicate', 'spark_incremental')(model_name, session_column)) -}}
{%- endmacro %}


{% macro default__run_slice_predicate(model_name, session_column='session_identifier') -%}
  {%- if not execute -%}
    {{- return('1 = 1') -}}
  {%- endif -%}
  {%- if session_column is not string or not modules.re.match('^[A-Za-z_][A-Za-z0-9_]*$', session_column) -%}
    {%- do exceptions.raise_compiler_error("spark_incremental: run_slice_predicate: session_column '"
        ~ session_column ~ "' is not a column name (letters, digits and _, not starting with a digit)") -%}
  {%- endif -%}
  {%- set node = spark_incremental._node_by_name(model_name) -%}
  {%- if node is none -%}
    {%- do exceptions.raise_compiler_error("spark_incremental: run_slice_predicate: model '" ~ model_name
        ~ "' is not an enabled model of this project") -%}
  {%- endif -%}

  {%- if model_name in spark_incremental.tracked_models() -%}
    {#- the slice is a filter on the model's session column: a tracked model without it (an
        aggregate by day) would fail with Spark's unresolved-column error -#}
    {%- set columns = adapter.get_columns_in_relation(spark_incremental._relation_for_model(model_name))
        | map(attribute='name') | map('lower') | list -%}
    {%- if columns and (session_column | lower) not in columns -%}
      {%- do exceptions.raise_compiler_error("spark_incremental: run_slice_predicate: model '" ~ model_name
          ~ "' is tagged spark_incremental, so its slice is its rows of the sessions the last run processed (`"
          ~ session_column ~ "` in the sessions of spark_incremental_base_sessions_this_run), but it has no column `"
          ~ session_column ~ "` (its columns: " ~ columns | join(', ') ~ "). Test it whole (leave "
          ~ spark_incremental._run_slice_token() ~ " out of its where), or, in a singular test, name its session"
          ~ " column: run_slice_predicate('" ~ model_name ~ "', session_column='...')") -%}
    {%- endif -%}
    {%- set sessions = spark_incremental._relation_for_model('spark_incremental_base_sessions_this_run') -%}
    {{- return('`' ~ session_column ~ '` in (select session_identifier from ' ~ sessions ~ ')') -}}
  {%- endif -%}

  {%- if node.config.materialized != 'managed_incremental' -%}
    {%- do exceptions.raise_compiler_error("spark_incremental: run_slice_predicate: model '" ~ model_name
        ~ "' (materialized '" ~ node.config.materialized ~ "') has no recorded slice: it must be tagged"
        ~ " spark_incremental (fed by spark_incremental_base_events_this_run) or materialized"
        ~ " 'managed_incremental'") -%}
  {%- endif -%}
  {%- set state = spark_incremental._managed_read_state(model_name) -%}
  {%- set slice = (state.state or {}).get('slice') if state is not none else none -%}
  {{- return(spark_incremental._written_slice_sql(slice)) -}}
{%- endmacro %}

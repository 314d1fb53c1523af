{#- Read the window the limits model computed in this run (so the state is decided and
    logged once). Returns {'lower_limit', 'upper_limit', 'state', 'last_success_by_model',
    'nothing_new', 'sessions_until', 'restate'} (datetimes, int, {model: datetime}, bool:
    the window is empty because no event arrived since the last run, datetime: a
    session's events are read up to it, bool: state 5, a restatement). Once per
    invocation: the limits model keeps what it wrote (_keep_run_limits), else the first
    reader reads the view; every later model and the hooks share it (_run_cache). A
    view that does not exist (a selection without the limits model, before the pipeline
    ever ran in this schema), or a run table the calling model reads that does not
    exist (only the limits model ran there: _check_run_tables_exist), stops the model
    with an error that says what to run. -#}
{% macro return_limits_from_model(limits_relation) -%}
  {%- if not spark_incremental._can_query() or spark_incremental._missing_at_compile(limits_relation) -%}
    {%- set placeholder = modules.datetime.datetime(1970, 1, 1) -%}
    {{- return({'lower_limit': placeholder, 'upper_limit': placeholder, 'state': 0, 'last_success_by_model': {},
                'nothing_new': false, 'sessions_until': placeholder, 'restate': false}) -}}
  {%- endif -%}
  {%- do spark_incremental._keep_run_lock() -%}
  {%- set cache = spark_incremental._run_cache('run_limits') -%}
  {%- if (limits_relation | string) not in cache -%}
    {%- do cache.update({limits_relation | string: spark_incremental._read_run_limits_view(limits_relation)}) -%}
  {%- endif -%}
  {%- do spark_incremental._check_run_tables_exist() -%}
  {{- return(dict(cache[limits_relation | string])) -}}
{%- endmacro %}


{#- The limits the limits model wrote to its view (`limits_relation`), as
    return_limits_from_model returns them; a view that does not exist, or one that does
    not hold one row, stops the model with an error that says what to run. -#}
{% macro _read_run_limits_view(limits_relation) -%}
  {%- if not spark_incremental._relation_exists_now(limits_relation) -%}
    {%- do exceptions.raise_compiler_error(
        "spark_incremental: this model reads the run limits from " ~ limits_relation ~ ", which does not"
        ~ " exist: the events pipeline has not run in this schema yet (or the view was dropped). A"
        ~ " selection without spark_incremental_base_new_event_limits reads the limits of the pipeline's"
        ~ " last run, and the run tables that run wrote. Run the pipeline first: dbt run (every model),"
        ~ " or dbt run --select +<this model>. This model changed nothing.") -%}
  {%- endif -%}
  {%- set sql -%}
    select
        date_format(lower_limit, 'yyyy-MM-dd HH:mm:ss') as lower_limit,
        date_format(upper_limit, 'yyyy-MM-dd HH:mm:ss') as upper_limit,
        state,
        last_success_by_model,
        nothing_new,
        date_format(sessions_until, 'yyyy-MM-dd HH:mm:ss') as sessions_until
    from {{ limits_relation }}
  {%- endset -%}
  {%- set rows = run_query(sql).rows -%}
  {%- if rows | length != 1 -%}
    {%- do exceptions.raise_compiler_error(
        "spark_incremental: " ~ limits_relation ~ " should hold one row, found " ~ rows | length
        ~ ". Run spark_incremental_base_new_event_limits first.") -%}
  {%- endif -%}
  {{- return(spark_incremental._limits_from_row(rows[0])) -}}
{%- endmacro %}


{#- The limits as return_limits_from_model returns them, from the view's row (lower_limit,
    upper_limit, sessions_until as 'YYYY-MM-DD HH:MM:SS' text, state, the
    last_success_by_model JSON, nothing_new). -#}
{% macro _limits_from_row(row) -%}
  {{- return({
      'lower_limit': spark_incremental._parse_ts(row[0]),
      'upper_limit': spark_incremental._parse_ts(row[1]),
      'state': row[2] | int,
      'last_success_by_model': spark_incremental._parse_last_success_json(row[3]),
      'nothing_new': row[4] in [true, 'true', 1],
      'sessions_until': spark_incremental._parse_ts(row[5]),
      'restate': row[2] | int == 5,
  }) -}}
{%- endmacro %}


{#- The limits model, as it is rendered in a run: keep the limits it writes for the
    readers of this invocation, exactly as they would read them back from the view (the
    same texts, to the second). `relation`: the limits model's relation. -#}
{% macro _keep_run_limits(relation, limits, last_success_json) -%}
  {%- if not spark_incremental._can_query() or not spark_incremental._command_writes() -%}
    {{- return(none) -}}
  {%- endif -%}
  {%- set row = [
      spark_incremental._ts_text(limits.lower_limit),
      spark_incremental._ts_text(limits.upper_limit),
      limits.state,
      last_success_json,
      limits.get('nothing_new') or false,
      spark_incremental._ts_text(limits.sessions_until),
  ] -%}
  {%- do spark_incremental._run_cache('run_limits').update({relation | string: spark_incremental._limits_from_row(row)}) -%}
{%- endmacro %}


{#- {model: datetime} <-> JSON text {model: 'YYYY-MM-DD HH:MM:SS.ffffff'}. -#}
{% macro _last_success_json(by_model) -%}
  {%- set texts = {} -%}
  {%- for name, stamp in by_model.items() -%}
    {%- do texts.update({name: stamp.strftime('%Y-%m-%d %H:%M:%S.%f')}) -%}
  {%- endfor -%}
  {{- return(tojson(texts, sort_keys=true)) -}}
{%- endmacro %}


{% macro _parse_last_success_json(text) -%}
  {%- set by_model = {} -%}
  {%- for name, stamp in (fromjson(text) if text else {}).items() -%}
    {%- do by_model.update({name: modules.datetime.datetime.strptime(stamp, '%Y-%m-%d %H:%M:%S.%f')}) -%}
  {%- endfor -%}
  {{- return(by_model) -}}
{%- endmacro %}

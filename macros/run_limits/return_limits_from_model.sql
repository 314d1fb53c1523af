{#- Read the window the limits model computed in this run (so the state is decided and
    logged once). Returns {'lower_limit', 'upper_limit', 'state', 'last_success_by_model',
    'nothing_new', 'sessions_until', 'restate'} (datetimes, int, {model: datetime}, bool:
    the window is empty because no event arrived since the last run, datetime: a
    session's events are read up to it, bool: state 5, a restatement). -#}
{% macro return_limits_from_model(limits_relation) -%}
  {%- if not spark_incremental._can_query() or spark_incremental._missing_at_compile(limits_relation) -%}
    {%- set placeholder = modules.datetime.datetime(1970, 1, 1) -%}
    {{- return({'lower_limit': placeholder, 'upper_limit': placeholder, 'state': 0, 'last_success_by_model': {},
                'nothing_new': false, 'sessions_until': placeholder, 'restate': false}) -}}
  {%- endif -%}
  {%- do spark_incremental._keep_run_lock() -%}
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
  {{- return({
      'lower_limit': spark_incremental._parse_ts(rows[0][0]),
      'upper_limit': spark_incremental._parse_ts(rows[0][1]),
      'state': rows[0][2] | int,
      'last_success_by_model': spark_incremental._parse_last_success_json(rows[0][3]),
      'nothing_new': rows[0][4] in [true, 'true', 1],
      'sessions_until': spark_incremental._parse_ts(rows[0][5]),
      'restate': rows[0][2] | int == 5,
  }) -}}
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

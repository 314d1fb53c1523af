{#- The four-state decision, as a pure function of the manifest summary, and the
    restatement (state 5) that replaces it when restate ({start, end}, from
    _events_restatement) is given. Timestamps in and out are naive UTC datetimes. Returns
    a dict: state (1-5), lower_limit, upper_limit, sessions_until (a session's events are
    read up to it: upper_limit, or for a restatement the latest processed data, so a
    session that goes on past the range is reprocessed whole), new_models (list),
    description. -#}
{% macro calculate_run_limits(min_last_success, max_last_success, models_matched, models_expected,
                              start_date, backfill_limit_days, lookback_window_hours, now,
                              new_models=[], restate=none) -%}
  {%- set timedelta = modules.datetime.timedelta -%}
  {%- set backfill = timedelta(days=backfill_limit_days) -%}
  {%- set lookback = timedelta(hours=lookback_window_hours) -%}
  {%- if restate is not none -%}
    {%- set result = {
        'state': 5,
        'lower_limit': restate.start,
        'upper_limit': restate.end,
        'sessions_until': max_last_success,
        'description': "reprocessing sessions with events between '" ~ spark_incremental._ts_text(restate.start)
            ~ "' and '" ~ spark_incremental._ts_text(restate.end) ~ "' (restate: last_success is not moved)",
    } -%}
  {%- elif models_matched == 0 -%}
    {%- set result = {
        'state': 1,
        'lower_limit': start_date,
        'upper_limit': [now, start_date + backfill] | min,
        'description': 'no data in manifest, processing data from start_date',
    } -%}
  {%- elif models_matched < models_expected -%}
    {%- set result = {
        'state': 2,
        'lower_limit': start_date,
        'upper_limit': [max_last_success, start_date + backfill] | min,
        'description': 'new incremental models ' ~ (new_models | join(', ')) ~ ', backfilling',
    } -%}
  {%- elif min_last_success < max_last_success -%}
    {%- set result = {
        'state': 3,
        'lower_limit': min_last_success - lookback,
        'upper_limit': [max_last_success, min_last_success + backfill] | min,
        'description': 'incremental models out of sync, syncing',
    } -%}
  {%- else -%}
    {%- set result = {
        'state': 4,
        'lower_limit': max_last_success - lookback,
        'upper_limit': [now, max_last_success + backfill] | min,
        'description': 'standard incremental run',
    } -%}
  {%- endif -%}
  {%- do result.update({'new_models': new_models,
                         'sessions_until': result.get('sessions_until') or result.upper_limit}) -%}
  {{- return(result) -}}
{%- endmacro %}

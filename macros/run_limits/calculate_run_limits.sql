{#- The four-state decision, as a pure function of the manifest summary, and the
    restatement (state 5) that replaces it when restate ({start, end}, from
    _events_restatement) is given. Timestamps in and out are naive UTC datetimes. Returns
    a dict: state (1-5), lower_limit, upper_limit, sessions_until (a session's events are
    read up to it: upper_limit, or for a restatement the latest processed data, so a
    session that goes on past the range is reprocessed whole), new_models (list),
    description, backfill_from (the instant after which the window's new events lie:
    start_date in states 1-2, the min/max last_success in states 3/4; none in state 5), cap
    (the upper limit's bound: now, or max_last_success in states 2-3), and gap ({'from',
    'to'}: the empty range skipped, when first_event moved the upper limit, or none).
    first_event: the first event past the window, given by get_run_limits when the
    window as computed holds no new event but newer events exist (a gap in the data):
    the backfill_limit_days then count from it, so one run crosses the gap whatever its
    length. The lower limit (and its lookback) does not move. -#}
{% macro calculate_run_limits(min_last_success, max_last_success, models_matched, models_expected,
                              start_date, backfill_limit_days, lookback_window_hours, now,
                              new_models=[], restate=none, first_event=none) -%}
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
        'backfill_from': start_date,
        'lower_limit': start_date,
        'cap': now,
        'description': 'no data in manifest, processing data from start_date',
    } -%}
  {%- elif models_matched < models_expected -%}
    {%- set result = {
        'state': 2,
        'backfill_from': start_date,
        'lower_limit': start_date,
        'cap': max_last_success,
        'description': 'new incremental models ' ~ (new_models | join(', ')) ~ ', backfilling',
    } -%}
  {%- elif min_last_success < max_last_success -%}
    {%- set result = {
        'state': 3,
        'backfill_from': min_last_success,
        'lower_limit': min_last_success - lookback,
        'cap': max_last_success,
        'description': 'incremental models out of sync, syncing',
    } -%}
  {%- else -%}
    {%- set result = {
        'state': 4,
        'backfill_from': max_last_success,
        'lower_limit': max_last_success - lookback,
        'cap': now,
        'description': 'standard incremental run',
    } -%}
  {%- endif -%}
  {%- if restate is none -%}
    {#- the cap (now, or the newest last_success) bounds the window from backfill_from,
        or from the first event past a gap when that moves it further -#}
    {%- set plain = [result.cap, result.backfill_from + backfill] | min -%}
    {%- set reach = [result.cap, (first_event or result.backfill_from) + backfill] | min -%}
    {%- do result.update({'upper_limit': [plain, reach] | max}) -%}
  {%- endif -%}
  {%- do result.update({'new_models': new_models, 'gap': none,
                         'sessions_until': result.get('sessions_until') or result.upper_limit}) -%}
  {%- if restate is none and first_event is not none and result.upper_limit > plain -%}
    {%- set gap = first_event - result.backfill_from -%}
    {%- do result.update({
        'gap': {'from': result.backfill_from, 'to': first_event},
        'description': result.description ~ "; no event from '" ~ spark_incremental._ts_text(result.backfill_from)
            ~ "' to '" ~ spark_incremental._ts_text(first_event) ~ "' (a gap of " ~ gap.days ~ ' d '
            ~ (gap.seconds // 3600) ~ ' h): skipped, backfill_limit_days counted from the first event after it',
    }) -%}
  {%- endif -%}
  {{- return(result) -}}
{%- endmacro %}

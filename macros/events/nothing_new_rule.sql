{#- May a standard run skip its work because nothing arrived since the last run? The one
    place that decides it, with one query of two limit-1 parts: one within the window's
    partitions, one past the window (each part lists only its own partitions). Returns {'skip': bool, 'rule':
    the log line's reason, or none when events newer than last_success exist (a standard
    run, nothing to explain), 'gap': bool (no newer event in the window, but events past
    it: get_run_limits skips the gap, _first_event_after)}.

    Nothing is new when no event the window would keep (_session_event_filter) is newer
    than the models' last_success (to the second,
    so 'newer' starts at next_second, up to any time: events past the window need the
    normal window, or a gap in the data could never be crossed) and nothing arrived that
    the standard window would read: an older session's late events, loaded since the
    last run, inside the lookback window.
    - With a load timestamp column (spark_incremental__load_timestamp; load_tstamp when the
      events table has it) and a load watermark (the newest load timestamp among the events
      the last processing run read): one part of the query asks the window for either
      kind of event, the other for events past the window. Their filters
      are pushed down to Parquet, so when nothing is new the files' min/max statistics of
      the session and load timestamps rule out every file of the partitions from the
      lookback window on, whatever the order of the rows in them: no row is read.
    - Without one, late loads cannot be told apart from events already processed, so the
      lookback window is processed again, as Snowplow does (the same two queries, for the
      log line: newer events, or none). -#}
{% macro _nothing_new_rule(event_columns, limits, last_success) -%}
  {%- set next_second = last_success + modules.datetime.timedelta(seconds=1) -%}
  {%- set load_column = spark_incremental._load_timestamp_column(event_columns) -%}
  {%- set watermark = spark_incremental._load_watermark() if load_column is not none else none -%}
  {%- set session_timestamp = adapter.quote(spark_incremental.get_config_var('session_timestamp')) -%}
  {%- set newer = session_timestamp ~ ' > ' ~ spark_incremental._ts_literal(next_second) -%}
  {#- only events the window would keep count (the window's own filter: a session id, not
      sent too late, of the app_ids): a newer row it drops would otherwise make every
      later run process the lookback window again -#}
  {%- set session_vars = spark_incremental.validate_session_vars() -%}
  {%- set kept = spark_incremental._session_event_filter(session_vars) -%}
  {#- with app_ids: newer events of other apps, to tell "nothing new" from "nothing of these
      apps" (a misspelt var) -#}
  {%- set app_column = adapter.quote(session_vars.app_id_column) if session_vars.app_ids | length > 0
      and session_vars.app_id_column else none -%}
  {%- if watermark is none -%}
    {%- if spark_incremental._events_exist_after(next_second, limits.upper_limit, kept) -%}
      {{- return({'skip': false, 'rule': none, 'gap': false}) -}}
    {%- elif spark_incremental._events_exist_after(limits.upper_limit) -%}
      {{- return({'skip': false, 'rule': none, 'gap': true}) -}}
    {%- endif -%}
    {%- if load_column is none -%}
      {{- return({'skip': false, 'gap': false, 'rule': 'the events table has no load timestamp (spark_incremental__load_timestamp),'
          ~ ' so late loads cannot be told from processed events: the lookback window is processed again'}) -}}
    {%- endif -%}
    {{- return({'skip': false, 'gap': false, 'rule': 'no load watermark is recorded yet: the lookback window is processed'
        ~ ' once, to record one'}) -}}
  {%- endif -%}
  {%- set since = spark_incremental._ts_literal_precise(watermark) -%}
  {%- set since_text = "'" ~ watermark.strftime('%Y-%m-%d %H:%M:%S.%f') ~ "'" -%}
  {%- set late = session_timestamp ~ ' <= ' ~ spark_incremental._ts_literal(next_second)
      ~ ' and ' ~ adapter.quote(load_column) ~ ' > ' ~ since -%}
  {#- one statement, two limit-1 parts: an event to process within the window's partitions
      (newer, or loaded late), and any event past the window (a gap), each pruned to its
      own partitions -#}
  {%- set sql -%}
    (
        select
            'window' as part,
            {{ newer }} as is_newer,
            cast(null as string) as app
        from {{ spark_incremental.events_relation() }}
        where
            {{ spark_incremental.events_window_filter(limits.lower_limit, limits.upper_limit) }}
            and ({{ newer }} or ({{ late }}))
            and {{ kept }}
        limit 1
    )
    union all
    (
        select
            'past' as part,
            true as is_newer,
            cast(null as string) as app
        from {{ spark_incremental.events_relation() }}
        where {{ spark_incremental.events_window_filter(limits.upper_limit, none, lower_exclusive=true) }}
        limit 1
    )
    {%- if app_column %}
    union all
    (
        select
            'other_apps' as part,
            true as is_newer,
            coalesce(cast({{ app_column }} as string), 'null') as app
        from {{ spark_incremental.events_relation() }}
        where
            {{ spark_incremental.events_window_filter(limits.lower_limit, limits.upper_limit) }}
            and {{ newer }}
            and not coalesce({{ app_column }} in ({{ spark_incremental._quoted_app_ids(session_vars) }}), false)
        limit 1
    )
    {%- endif %}
  {%- endset -%}
  {%- set parts = {} -%}
  {%- set other_app = [] -%}
  {%- for part, is_newer, app in spark_incremental._fetch_rows(sql) -%}
    {%- do parts.update({part: is_newer in [true, 'true', 1]}) -%}
    {%- if part == 'other_apps' -%}
      {%- do other_app.append(app) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- if parts.get('window') -%}
    {{- return({'skip': false, 'rule': none, 'gap': false}) -}}
  {%- endif -%}
  {%- if 'window' not in parts and 'past' in parts -%}
    {#- events past the window only: a gap in the data, skipped -#}
    {{- return({'skip': false, 'rule': none, 'gap': true}) -}}
  {%- endif -%}
  {%- if 'window' in parts -%}
    {#- late loads into the lookback: newer events in the window, past it (a gap), or none -#}
    {%- if spark_incremental._events_exist_after(next_second, limits.upper_limit, kept) -%}
      {{- return({'skip': false, 'rule': none, 'gap': false}) -}}
    {%- elif 'past' in parts -%}
      {{- return({'skip': false, 'rule': none, 'gap': true}) -}}
    {%- endif -%}
    {{- return({'skip': false, 'rule': 'events loaded after the load watermark ' ~ since_text ~ ' (' ~ load_column
        ~ ') lie in the lookback window: processing it', 'gap': false}) -}}
  {%- endif -%}
  {%- if other_app -%}
    {%- do spark_incremental._warn('spark_incremental__app_ids = [' ~ session_vars.app_ids | join(', ')
        ~ '] matched none of the events newer than last_success \'' ~ spark_incremental._ts_text(last_success)
        ~ '\' (' ~ session_vars.app_id_column ~ ' there: \'' ~ other_app[0] ~ '\', maybe more), so this run'
        ~ ' processes nothing; its progress stays where it is and no event is lost. If the var is wrong, fix it'
        ~ ' (a list as text: \'[a, b]\' or \'a,b\') and run again.') -%}
  {%- endif -%}
  {{- return({'skip': true, 'rule': 'nothing loaded into the lookback window since the load watermark ' ~ since_text
      ~ ' (' ~ load_column ~ '): nothing to process, every model skips its work', 'gap': false}) -}}
{%- endmacro %}


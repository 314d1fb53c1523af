{#- The base chain's entries: the run limits (state, window, why), the window's scan of
    the events table (spark_incremental_base_events_in_window, the run's one scan of the
    window) and events_this_run's reads of it outside the window (_plan_read_back_scan,
    an upper bound), each beside the same for the first window from start_date (what a
    run reads once the state is forgotten: --full-refresh with allow_refresh). -#}
{% macro _plan_base_chain(limits, tracked, managed, now) -%}
  {%- set run_vars = spark_incremental._validate_run_vars() -%}
  {%- set first = spark_incremental.calculate_run_limits(none, none, 0, tracked | length, run_vars.start_date,
      run_vars.backfill_limit_days, run_vars.lookback_window_hours, now, tracked) -%}
  {%- set events = spark_incremental.events_relation() -%}
  {%- set window = spark_incremental._plan_window_scan(events, limits.lower_limit, limits.upper_limit) -%}
  {%- set full = spark_incremental._plan_window_scan(events, first.lower_limit, first.upper_limit) -%}
  {%- set skips = limits.get('nothing_new') -%}
  {%- set read_back = none if skips else spark_incremental._plan_read_back_scan(events, limits) -%}
  {%- set full_read_back = spark_incremental._plan_read_back_scan(events, first) -%}
  {%- set state_text = 'state ' ~ limits.state ~ ": events '" ~ spark_incremental._ts_text(limits.lower_limit)
      ~ "' to '" ~ spark_incremental._ts_text(limits.upper_limit) ~ "' (" ~ limits.description ~ ')'
      ~ ('; nothing new: every model skips its work' if skips else '') -%}
  {%- set notes = {
      'spark_incremental_base_new_event_limits': state_text,
      'spark_incremental_base_events_in_window': "scans the window of the events table (the run's one scan of it)",
      'spark_incremental_base_sessions_lifecycle_manifest': 'adds the sessions of the window',
      'spark_incremental_base_quarantined_sessions': 'adds the sessions that reach max_session_days',
      'spark_incremental_base_sessions_this_run': 'rebuilt: the sessions of the window',
      'spark_incremental_base_events_this_run': 'rebuilt: every event of those sessions; it reads the events table'
          ~ ' again before the window, for the sessions begun before it'
          ~ (' and earlier copies of their events (dedupe_across_runs)' if spark_incremental.get_config_var('dedupe_across_runs') else '')
          ~ ((", from '" ~ spark_incremental._ts_text(read_back.reads_from) ~ "' at the earliest") if read_back else '')
          ~ ': the figures are that range, an upper bound',
  } -%}
  {%- set entries = [] -%}
  {%- for name, note in notes.items() if spark_incremental._node_by_name(name) is not none -%}
    {%- set entry = {'model': name, 'kind': 'base', 'action': 'skip' if skips else 'process',
        'detail': note if loop.first else state_text.split(' (')[0] ~ ': ' ~ note, 'inputs': []} -%}
    {%- if name in managed -%}
      {#- a managed_incremental base model (the lifecycle manifest): its own plan decides -#}
      {%- set planned = spark_incremental._plan_model(managed[name], limits, false, managed[name]) -%}
      {%- do entry.update({'kind': 'base + ' ~ planned.kind, 'action': planned.action,
          'detail': planned.detail ~ '; ' ~ entry.detail, 'inputs': planned.inputs,
          'plan': planned.plan, 'refresh_plan': planned.refresh_plan,
          'batches_upper_bound': planned.batches_upper_bound, 'refused': planned.refused}) -%}
    {%- endif -%}
    {%- do entry.update({'state': limits.state, 'lower_limit': spark_incremental._ts_text(limits.lower_limit),
        'upper_limit': spark_incremental._ts_text(limits.upper_limit)}) -%}
    {%- if name == 'spark_incremental_base_events_in_window' -%}
      {#- a skip reads nothing (the one read of an empty window is the limits' query) -#}
      {%- do entry.inputs.append(spark_incremental._plan_input(none if entry.action == 'skip' else window, full)) -%}
    {%- elif name == 'spark_incremental_base_events_this_run' -%}
      {%- do entry.inputs.append(spark_incremental._plan_input(read_back, full_read_back)) -%}
    {%- endif -%}
    {%- do entries.append(entry) -%}
  {%- endfor -%}
  {{- return(entries) -}}
{%- endmacro %}

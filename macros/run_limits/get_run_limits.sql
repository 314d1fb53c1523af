{#- Decide which slice of events this run processes, log the state and the window, and
    return {'state', 'lower_limit', 'upper_limit', 'new_models', 'description',
    'last_success_by_model'} (the tracked models' last_success, for is_run_with_new_events). -#}
{% macro get_run_limits() -%}
  {{- return(adapter.dispatch('get_run_limits', 'spark_incremental')()) -}}
{%- endmacro %}


{% macro default__get_run_limits() -%}
  {%- set run_vars = spark_incremental._validate_run_vars() -%}
  {%- set tagged = spark_incremental._tagged_models() -%}
  {%- set tracked = tagged.tracked -%}
  {%- set ephemeral = tagged.ephemeral -%}
  {%- if ephemeral and spark_incremental._can_query() -%}
    {%- do spark_incremental._log(ephemeral | join(', ') ~ (' is' if ephemeral | length == 1 else ' are')
        ~ " tagged spark_incremental but ephemeral: not tracked (no table, no progress to record); a tagged"
        ~ " model that selects from it is") -%}
  {%- endif -%}
  {#- offline (lint) compiles, and compiles before the events table exists: the first
      run's window, without reading anything -#}
  {%- if not spark_incremental._can_query()
        or spark_incremental._missing_at_compile(spark_incremental.events_relation()) -%}
    {{- return(spark_incremental.calculate_run_limits(
        none, none, 0, 0, run_vars.start_date, run_vars.backfill_limit_days,
        run_vars.lookback_window_hours, spark_incremental.now())) -}}
  {%- endif -%}
  {%- set event_columns = spark_incremental._check_events_table().columns | map('lower') | list -%}
  {%- do spark_incremental._check_hook_configured(tracked) -%}
  {%- set summary = spark_incremental._manifest_summary(tracked) -%}
  {#- after the summary: its read brings the session time zone along -#}
  {%- do spark_incremental._check_session_time_zone() -%}
  {%- set new_models = [] -%}
  {%- for name in tracked if name not in summary.models -%}
    {%- do new_models.append(name) -%}
  {%- endfor -%}
  {#- spark_incremental__restate {start, end}: a restatement replaces the four states -#}
  {%- set restate = spark_incremental._events_restatement(run_vars.start_date, summary) -%}
  {%- set limits = spark_incremental.calculate_run_limits(
      summary.min_last_success, summary.max_last_success, summary.models | length, tracked | length,
      run_vars.start_date, run_vars.backfill_limit_days, run_vars.lookback_window_hours,
      spark_incremental.now(), new_models, restate) -%}
  {%- set next_second = summary.max_last_success + modules.datetime.timedelta(seconds=1) if summary.max_last_success else none -%}
  {%- set skip = {'rule': none, 'gap': false} -%}
  {%- if limits.state == 4 -%}
    {#- nothing new: no event newer than last_success, nothing loaded late into the lookback
        (two limit-1 queries, answered from Parquet statistics when nothing is new); it
        also tells a gap: no newer event in the window, but events past it -#}
    {%- do skip.update(spark_incremental._nothing_new_rule(event_columns, limits, summary.max_last_success)) -%}
  {%- elif limits.state in [1, 2, 3] -%}
    {#- a catch-up: its window holds no new event but events lie past it (a gap) -#}
    {%- do skip.update({'gap': not spark_incremental._events_exist_after(limits.backfill_from, limits.upper_limit)
        and spark_incremental._events_exist_after(limits.upper_limit)}) -%}
  {%- endif -%}
  {%- if skip.gap -%}
    {#- an empty range is processed trivially: the window reaches backfill_limit_days past
        the first event after the gap, so N empty windows cost no run; its lower limit
        (the lookback, late loads) stays -#}
    {%- set limits = spark_incremental.calculate_run_limits(
        summary.min_last_success, summary.max_last_success, summary.models | length, tracked | length,
        run_vars.start_date, run_vars.backfill_limit_days, run_vars.lookback_window_hours,
        spark_incremental.now(), new_models, restate,
        first_event=spark_incremental._first_event_after(limits.upper_limit)) -%}
  {%- endif -%}
  {%- do limits.update({'last_success_by_model': summary.last_success_by_model}) -%}
  {%- if skip.get('skip') -%}
    {#- an empty window, so every model's work is skipped: the instant after last_success,
        which no session of the lifecycle manifest reaches -#}
    {%- do limits.update({
        'lower_limit': next_second,
        'upper_limit': next_second,
        'sessions_until': next_second,
        'nothing_new': true,
    }) -%}
  {%- endif -%}
  {%- if tracked | length == 0 -%}
    {%- do spark_incremental._warn(
        "no enabled model is tagged 'spark_incremental', so the manifest never records progress"
        ~ " and every run processes the first window again. Tag your derived models.") -%}
  {%- endif -%}
  {%- do spark_incremental._log(('[restate] ' if restate else '[state ' ~ limits.state ~ '] ') ~ limits.description) -%}
  {%- if restate and restate.clipped -%}
    {%- do spark_incremental._log('restate: the range asked for, ' ~ spark_incremental._config_value_shown(restate.requested)
        ~ ', is clipped to start_date and the latest processed data (the newest last_success)') -%}
  {%- endif -%}
  {%- do spark_incremental._log("processing data between '" ~ spark_incremental._ts_text(limits.lower_limit)
      ~ "' and '" ~ spark_incremental._ts_text(limits.upper_limit) ~ "'") -%}
  {%- if skip.rule -%}
    {%- do spark_incremental._log("no event after '" ~ spark_incremental._ts_text(summary.max_last_success)
        ~ "' (the models' last_success); " ~ skip.rule) -%}
  {%- endif -%}
  {{- return(limits) -}}
{%- endmacro %}


{#- min/max last_success over the tracked models found in the manifest, their names and
    each one's last_success. -#}
{% macro _manifest_summary(tracked) -%}
  {%- set by_model = {} -%}
  {%- for name, row in spark_incremental._manifest_current_rows(at_lock=true).items() -%}
    {%- if name in tracked and row.last_success is not none -%}
      {%- do by_model.update({name: row.last_success}) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- set stamps = by_model.values() | list -%}
  {{- return({'models': by_model.keys() | list,
              'min_last_success': stamps | min if stamps else none,
              'max_last_success': stamps | max if stamps else none,
              'last_success_by_model': by_model}) -}}
{%- endmacro %}


{#- The events table exists, and has every column the package reads (_event_columns: its
    one describe also tells a missing table, so the events schema is not listed). -#}
{% macro _check_events_table() -%}
  {{- return(spark_incremental._event_columns(spark_incremental.events_relation())) -}}
{%- endmacro %}


{#- Tracked models without the on-run-end hook would never record progress. -#}
{% macro _check_hook_configured(tracked) -%}
  {%- if tracked | length == 0 -%}
    {{- return(none) -}}
  {%- endif -%}
  {%- for node in graph.nodes.values() -%}
    {%- if node.resource_type == 'operation' and 'update_manifest' in (node.raw_code or '') -%}
      {{- return(none) -}}
    {%- endif -%}
  {%- endfor -%}
  {%- do spark_incremental._warn(
      "models are tagged spark_incremental but no on-run-end hook calls update_manifest, so their"
      ~ " progress is never recorded. Add to dbt_project.yml:"
      ~ " on-run-end: \"{{ '{{' }} spark_incremental.update_manifest() {{ '}}' }}\"") -%}
{%- endmacro %}

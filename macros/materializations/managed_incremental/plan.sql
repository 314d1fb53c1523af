{#- Decide what a managed_incremental run does. A pure function of its inputs (no SQL),
    so it is computed the same way at compile time (is_incremental(), along_min(), ...)
    and in the materialization, and so later contracts (change descriptions, time
    intervals, forward-only) can add inputs and actions here.

    cfg:   from _managed_config() (optionally enriched by _managed_validate_columns()).
    state: from _managed_read_state(), or none.
    now:   naive UTC datetime (spark_incremental.now()).
    flags: {full_refresh: bool, target_exists: bool, target_is_table: bool,
            unrecorded_rows: bool (the target holds rows past the recorded high-water
            mark, or any row when no mark is recorded: an earlier run died after
            writing them),
            no_new_events: bool (skip_without_new_events is set and
            is_run_with_new_events() is false),
            skip_write: the reason the model's SQL gave to skip_write, or none}.

    Returns {action, reason, is_incremental, window: {lower, lower_op, upper},
             replace_lower, replace_lower_op, by_key, next_due}:
      action 'build'         build the whole model and swap it in (reason says why);
             'skip'          do nothing (reason: 'skipped: ...');
             'append'        insert rows with along > high-water mark;
             'replace_range' replace the target rows with along > replace_lower (>= with
                             replace_lower_op '>=') by the
                             source rows in that range (grace period, or recovery);
             'upsert'        insert or replace the query's rows by unique_key;
             'insert'        insert the query's rows as they are (no mutability, no
                             unique_key: dbt's incremental append);
             'overwrite'     replace the partitions the query's rows fall in by those rows
                             (no mutability, incremental_strategy 'insert_overwrite');
             'apply_changes' apply change_plan, the refresh plan of described changes
                             (flags.change_plan, from spark_incremental.refresh_plan());
                             with time intervals, then process the missing (and
                             restated) intervals of `work`, as 'intervals' does;
             'intervals'     process the missing time intervals of `work` (rebuild: create
                             the table empty first and forget the done intervals).
      restated: with time intervals (and no rebuild), the ranges spark_incremental__restate
                redoes for the model ([[start, end)], [] when none).
      window: the source filter on the along column (text bounds; none = unbounded).
      by_key: target rows whose unique_key is among the new rows are replaced. -#}
{% macro _managed_plan(cfg, state, now, flags) -%}
  {%- set mtype = cfg.mutability_type -%}
  {%- set along_types = spark_incremental._managed_along_types() -%}
  {%- set by_key = cfg.unique_key | length > 0 -%}
  {%- set plan = {
      'action': none,
      'reason': none,
      'window': {'lower': none, 'lower_op': '>=', 'upper': none},
      'replace_lower': none,
      'replace_lower_op': '>',
      'by_key': false,
      'next_due': none,
  } -%}
  {%- if mtype in along_types -%}
    {%- do plan.window.update({'lower': cfg.min, 'lower_op': '>=', 'upper': cfg.max}) -%}
  {%- endif -%}

  {#- 1. builds (a forward-only model is not rebuilt by a change of its config) -#}
  {%- set build = spark_incremental._forward_only_build_reason(cfg, state,
      spark_incremental._managed_build_reason(cfg, state, flags), flags) -%}
  {%- set build_reason = build.reason -%}
  {%- do plan.update({'kept': build.kept}) -%}
  {%- set changes = flags.get('change_plan') -%}
  {%- if build_reason is none and changes is not none and changes.full_refresh -%}
    {%- set build_reason = 'full refresh: ' ~ changes.reason -%}
  {%- endif -%}
  {%- if build_reason is not none and cfg.intervals -%}
    {%- do plan.update({'action': 'intervals', 'reason': build_reason, 'rebuild': true,
        'work': spark_incremental._interval_batches(cfg.intervals, [], now, [])}) -%}
    {{- return(spark_incremental._managed_plan_done(plan)) -}}
  {%- endif -%}
  {%- if build_reason is not none -%}
    {%- do plan.update({'action': 'build', 'reason': build_reason}) -%}
    {{- return(spark_incremental._managed_plan_done(plan)) -}}
  {%- endif -%}

  {#- 1b. described changes (spark_incremental__changes) come before the schedule; a model
      with time intervals then processes its missing intervals in the same run (a loader
      that describes every load still gets them) -#}
  {%- if changes is not none -%}
    {%- do plan.update({'action': 'apply_changes', 'reason': 'change descriptions', 'change_plan': changes}) -%}
    {%- if cfg.intervals -%}
      {%- set intervals = spark_incremental._managed_interval_work(cfg, state, now) -%}
      {%- do plan.update({'restated': intervals.restated, 'rebuild': false, 'work': intervals.work}) -%}
      {%- if intervals.work.batches | length > 0 -%}
        {%- do plan.update({'reason': 'change descriptions, then time intervals'}) -%}
      {%- endif -%}
    {%- endif -%}
    {{- return(spark_incremental._managed_plan_done(plan)) -}}
  {%- endif -%}

  {#- 1b'. the run's window brings this model nothing new (skip_without_new_events) -#}
  {%- if flags.get('no_new_events') -%}
    {%- do plan.update({'action': 'skip', 'reason': "skipped: no new events in this run's window (skip_without_new_events)"}) -%}
    {{- return(spark_incremental._managed_plan_done(plan)) -}}
  {%- endif -%}

  {#- 1b''. the model's SQL found nothing to write in this run (skip_write) -#}
  {%- if flags.get('skip_write') -%}
    {%- do plan.update({'action': 'skip', 'reason': 'skipped: ' ~ flags.skip_write ~ ' (skip_write)'}) -%}
    {{- return(spark_incremental._managed_plan_done(plan)) -}}
  {%- endif -%}

  {#- 1c. time intervals: the missing ready intervals, in batches -#}
  {%- if cfg.intervals -%}
    {%- set intervals = spark_incremental._managed_interval_work(cfg, state, now) -%}
    {%- set work = intervals.work -%}
    {%- do plan.update({'restated': intervals.restated}) -%}
    {%- if work.batches | length == 0 -%}
      {#- the next interval is ready at the first cron fire at or after its end (and after
          now): with a cron that fires more often than the unit, not at the next fire -#}
      {%- set next_end = spark_incremental._interval_add([work.end, cfg.intervals.start] | max, cfg.intervals.unit, 1) -%}
      {%- set due = spark_incremental._cron_next(cfg.intervals.cron,
          [now, next_end - modules.datetime.timedelta(minutes=1)] | max) -%}
      {%- do plan.update({'action': 'skip', 'next_due': due, 'reason': 'skipped: no missing ' ~ cfg.intervals.unit
          ~ ' intervals up to ' ~ spark_incremental._ts_text(work.end) ~ "; next due when cron '"
          ~ cfg.intervals.cron_text ~ "' fires at " ~ spark_incremental._ts_text(due)}) -%}
    {%- else -%}
      {%- do plan.update({'action': 'intervals', 'reason': 'time intervals', 'rebuild': false, 'work': work}) -%}
    {%- endif -%}
    {{- return(spark_incremental._managed_plan_done(plan)) -}}
  {%- endif -%}

  {#- 2. schedules -#}
  {%- if mtype == 'immutable' -%}
    {%- do plan.update({'action': 'skip', 'reason': 'skipped: immutable'}) -%}
    {{- return(spark_incremental._managed_plan_done(plan)) -}}
  {%- endif -%}
  {%- if cfg.cron is not none -%}
    {%- set due = spark_incremental._cron_due(cfg.cron, state.last_refresh if state else none, now) -%}
    {%- do plan.update({'next_due': due.next_due}) -%}
    {%- set cron_text = "update_cron '" ~ cfg.update_cron ~ "'" -%}
    {%- if not due.due -%}
      {%- do plan.update({'action': 'skip', 'reason': 'skipped: next refresh due at '
          ~ spark_incremental._ts_text(due.next_due) ~ ' (' ~ cron_text ~ ')'}) -%}
      {{- return(spark_incremental._managed_plan_done(plan)) -}}
    {%- endif -%}
    {%- if mtype == 'full_mutation' -%}
      {%- do plan.update({'action': 'build', 'reason': 'refreshed: '
          ~ (cron_text ~ ' was due at ' ~ spark_incremental._ts_text(due.next_due) if due.next_due else 'first refresh')}) -%}
      {{- return(spark_incremental._managed_plan_done(plan)) -}}
    {%- endif -%}
  {%- endif -%}

  {#- 3. incremental writes -#}
  {%- if cfg.overwrite_partitions -%}
    {#- no mutability, incremental_strategy 'insert_overwrite' (dbt-spark's): the query's
        rows replace the partitions they fall in; unique_key is not used, as in dbt-spark -#}
    {%- do plan.update({'action': 'overwrite', 'reason': "incremental_strategy 'insert_overwrite': "
        ~ ('the partitions the query writes are replaced' if cfg.partition_by else
           'the query replaces the table (no partition_by)')}) -%}
    {{- return(spark_incremental._managed_plan_done(plan)) -}}
  {%- endif -%}
  {%- if mtype == 'append' -%}
    {#- no mutability, no unique_key: dbt's incremental append; the query's own
        is_incremental() filter decides what it selects -#}
    {%- do plan.update({'action': 'insert', 'reason': 'no unique_key: plain append, as dbt incremental'}) -%}
    {{- return(spark_incremental._managed_plan_done(plan)) -}}
  {%- endif -%}
  {%- if mtype == 'upsert' -%}
    {%- do plan.update({'action': 'upsert', 'reason': 'upsert on ' ~ cfg.unique_key | join(', '), 'by_key': true}) -%}
    {{- return(spark_incremental._managed_plan_done(plan)) -}}
  {%- endif -%}
  {%- set hwm = state.high_water_mark -%}
  {%- set kind = spark_incremental._along_kind(state.high_water_mark_type) -%}
  {%- if hwm is none and flags.get('unrecorded_rows') -%}
    {#- rows but no mark: an earlier append stopped before recording its state -#}
    {%- do plan.update({'action': 'build', 'reason': 'full refresh: the target holds rows but no high-water mark'
        ~ ' is recorded (an earlier run stopped before recording its state): rebuilding instead of appending'}) -%}
    {{- return(spark_incremental._managed_plan_done(plan)) -}}
  {%- endif -%}
  {%- if hwm is none -%}
    {#- nothing loaded yet: read the whole window again, nothing to replace but new keys -#}
    {%- do plan.update({'action': 'append', 'reason': 'nothing loaded yet', 'by_key': by_key}) -%}
    {{- return(spark_incremental._managed_plan_done(plan)) -}}
  {%- endif -%}
  {%- set grace = spark_incremental._grace_for_kind(cfg.grace, kind,
      "model '" ~ cfg.model ~ "': mutability.type_params.grace_period") if cfg.grace is not none else none -%}
  {%- if grace is not none and grace -%}
    {%- set lower = spark_incremental._grace_subtract(hwm, grace, kind) -%}
    {%- set reason = 'grace_period ' ~ cfg.grace.text ~ ' before the high-water mark ' ~ hwm -%}
    {%- set lower_op = '>' -%}
    {%- if cfg.min is not none and spark_incremental._along_compare(lower, cfg.min, kind) < 0 -%}
      {#- never below min: a row before it is never loaded, and the rows replaced are the
          rows read (a forward-only table kept through a raised min keeps its older rows) -#}
      {%- set lower, lower_op = cfg.min, '>=' -%}
      {%- set reason = reason ~ ' (not before min ' ~ cfg.min ~ ')' -%}
    {%- endif -%}
    {%- do plan.window.update({'lower': lower, 'lower_op': lower_op}) -%}
    {%- do plan.update({'action': 'replace_range', 'replace_lower': lower, 'replace_lower_op': lower_op,
        'by_key': by_key, 'reason': reason}) -%}
  {%- elif flags.get('unrecorded_rows') -%}
    {%- do plan.window.update({'lower': hwm, 'lower_op': '>'}) -%}
    {%- do plan.update({'action': 'replace_range', 'replace_lower': hwm, 'replace_lower_op': '>', 'by_key': by_key,
        'reason': 'the target holds rows past the recorded high-water mark ' ~ hwm
            ~ ' (added by described changes, which never move the mark, or written by a run that stopped before'
            ~ ' recording its state): replacing them instead of appending'}) -%}
  {%- else -%}
    {%- do plan.window.update({'lower': hwm, 'lower_op': '>'}) -%}
    {%- do plan.update({'action': 'append', 'reason': 'high-water mark ' ~ hwm, 'by_key': by_key}) -%}
  {%- endif -%}
  {{- return(spark_incremental._managed_plan_done(plan)) -}}
{%- endmacro %}


{#- A time-interval model's work in a run that does not rebuild it: the ranges
    spark_incremental__restate redoes ({restated: [[start, end)]]) and the batches of its
    missing ready intervals, restated ones included (work: _interval_batches()). -#}
{% macro _managed_interval_work(cfg, state, now) -%}
  {%- set restated = spark_incremental._interval_restated(cfg.model, cfg.intervals, now) -%}
  {%- set work = spark_incremental._interval_batches(cfg.intervals,
      spark_incremental._ranges_from_text((state.state if state else {}).get('intervals')), now, restated) -%}
  {{- return({'restated': restated, 'work': work}) -}}
{%- endmacro %}


{#- Why the whole model must be built, or none. -#}
{% macro _managed_build_reason(cfg, state, flags) -%}
  {%- set first = 'built once' if cfg.mutability_type == 'immutable' else 'built: first build' -%}
  {%- if not flags.target_exists -%}
    {{- return(first if state is none else first ~ ' (the table did not exist)') -}}
  {%- endif -%}
  {%- if flags.full_refresh -%}
    {{- return('full refresh: --full-refresh') -}}
  {%- endif -%}
  {%- if not flags.target_is_table -%}
    {{- return('full refresh: the target is a view, not a table') -}}
  {%- endif -%}
  {%- if state is none -%}
    {{- return(none if cfg.mutability_type in ['upsert', 'append'] else 'full refresh: the manifest holds no state for this model') -}}
  {%- endif -%}
  {%- if state.mutability_type != cfg.mutability_type -%}
    {{- return('full refresh: mutability type changed from ' ~ state.mutability_type ~ ' to ' ~ cfg.mutability_type) -}}
  {%- endif -%}
  {%- set old = (state.state or {}).get('fingerprint') -%}
  {%- if old is mapping -%}
    {%- for key, value in cfg.fingerprint.items() -%}
      {%- if key in old and old[key] != value -%}
        {{- return('full refresh: ' ~ key ~ ' changed from ' ~ old[key] ~ ' to ' ~ value) -}}
      {%- endif -%}
    {%- endfor -%}
  {%- endif -%}
  {{- return(none) -}}
{%- endmacro %}


{#- is_incremental: the model's SQL may read only what is new (append, replace_range,
    upsert, overwrite, interval batches). Not for a build, and not for described changes: their
    scopes may lie anywhere in the history, so the SQL reads everything and the
    materialization narrows it to each scope. -#}
{% macro _managed_plan_done(plan) -%}
  {%- do plan.update({'is_incremental': plan.action in ['append', 'insert', 'overwrite', 'replace_range', 'upsert']
      or (plan.action == 'intervals' and not plan.rebuild)}) -%}
  {{- return(plan) -}}
{%- endmacro %}

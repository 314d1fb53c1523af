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
             replace_lower, by_key, next_due}:
      action 'build'         build the whole model and swap it in (reason says why);
             'skip'          do nothing (reason: 'skipped: ...');
             'append'        insert rows with along > high-water mark;
             'replace_range' replace the target rows with along > replace_lower by the
                             source rows in that range (grace period, or recovery);
             'upsert'        insert or replace the query's rows by unique_key;
             'insert'        insert the query's rows as they are (no mutability, no
                             unique_key: dbt's incremental append);
             'overwrite'     replace the partitions the query's rows fall in by those rows
                             (no mutability, incremental_strategy 'insert_overwrite');
             'apply_changes' apply change_plan, the refresh plan of described changes
                             (flags.change_plan, from spark_incremental.refresh_plan());
             'intervals'     process the missing time intervals of `work` (rebuild: create
                             the table empty first and forget the done intervals).
      restated: with time intervals (and no rebuild), the ranges spark_incremental__restate
                redoes for the model ([[start, end)], [] when none).
      window: the source filter on the along column (text bounds; none = unbounded).
      by_key: target rows whose unique_key is among the new rows are replaced. -#}
{% macro _managed_plan(cfg, state, now, flags) -%}
  {%- set mtype = cfg.mutability_type -%}
  {%- set along_types = ['append_only', 'ds_append_only', 'incremental_indicator'] -%}
  {%- set by_key = cfg.unique_key | length > 0 -%}
  {%- set plan = {
      'action': none,
      'reason': none,
      'window': {'lower': none, 'lower_op': '>=', 'upper': none},
      'replace_lower': none,
      'by_key': false,
      'next_due': none,
      'changes_skipped': none,
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
  {%- if changes is not none and spark_incremental._changes_already_added(changes, state) -%}
    {#- a retry of a run in which this model added the rows and another model failed -#}
    {%- do plan.update({'changes_skipped': 'the described changes (' ~ spark_incremental._changes_identity(changes)
        ~ ') were already applied to this model by an earlier run (a retry?): their rows are not added twice;'
        ~ ' planned as if no change were described'}) -%}
    {%- set changes = none -%}
  {%- endif -%}
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

  {#- 1b. described changes (spark_incremental__changes) come before the schedule -#}
  {%- if changes is not none -%}
    {%- do plan.update({'action': 'apply_changes', 'reason': 'change descriptions', 'change_plan': changes}) -%}
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
    {%- set restated = spark_incremental._interval_restated(cfg.model, cfg.intervals, now) -%}
    {%- do plan.update({'restated': restated}) -%}
    {%- set work = spark_incremental._interval_batches(cfg.intervals,
        spark_incremental._ranges_from_text((state.state if state else {}).get('intervals')), now, restated) -%}
    {%- if work.batches | length == 0 -%}
      {%- do plan.update({'action': 'skip', 'reason': 'skipped: no missing ' ~ cfg.intervals.unit ~ ' intervals up to '
          ~ spark_incremental._ts_text(work.end) ~ "; next due when cron '" ~ cfg.intervals.cron_text ~ "' fires at "
          ~ spark_incremental._ts_text(spark_incremental._cron_next(cfg.intervals.cron, now))}) -%}
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
    {%- do plan.window.update({'lower': lower, 'lower_op': '>'}) -%}
    {%- do plan.update({'action': 'replace_range', 'replace_lower': lower, 'by_key': by_key,
        'reason': 'grace_period ' ~ cfg.grace.text ~ ' before the high-water mark ' ~ hwm}) -%}
  {%- elif flags.get('unrecorded_rows') -%}
    {%- do plan.window.update({'lower': hwm, 'lower_op': '>'}) -%}
    {%- do plan.update({'action': 'replace_range', 'replace_lower': hwm, 'by_key': by_key,
        'reason': 'the target holds rows past the recorded high-water mark ' ~ hwm
            ~ ' (added by described changes, which never move the mark, or written by a run that stopped before'
            ~ ' recording its state): replacing them instead of appending'}) -%}
  {%- else -%}
    {%- do plan.window.update({'lower': hwm, 'lower_op': '>'}) -%}
    {%- do plan.update({'action': 'append', 'reason': 'high-water mark ' ~ hwm, 'by_key': by_key}) -%}
  {%- endif -%}
  {{- return(spark_incremental._managed_plan_done(plan)) -}}
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


{#- THE plan of the model being compiled or run: computed once per model per invocation
    and used by every caller, so the SQL is rendered for the plan the materialization
    acts on (is_incremental(), along_min(), along_max(), along_filter() while dbt renders
    the model; then the materialization). The first call does, in this order:

      1. in a run, build or retry: repair what an interrupted run left (_managed_recover),
         so the plan sees the tables as the write will find them (in dbt compile or docs
         a leftover <name>__si_old counts as the target and nothing is written);
      2. read the target, the manifest state, the recorded change plan, and whether the
         run's window brings the model anything (skip_without_new_events);
      3. plan (_managed_plan); an append with recorded state asks whether the target holds
         rows past the mark (an earlier run died before recording them) and plans again.

    The result is kept for the invocation in the run's graph (the one object dbt shares
    between the rendering of a model and its materialization; keyed by invocation and
    node). Returns {cfg, state, now, flags, plan, existing, recovered (messages)}. -#}
{% macro _managed_run_plan() -%}
  {%- set cache = graph.setdefault('spark_incremental_run_plans', {}) -%}
  {%- set key = invocation_id ~ ' ' ~ model.unique_id -%}
  {%- if key in cache -%}
    {{- return(cache[key]) -}}
  {%- endif -%}
  {%- set current = spark_incremental._managed_plan_for_node(model, this.incorporate(type='table'),
      flags.WHICH in ['run', 'build', 'retry'], should_full_refresh()) -%}
  {%- do cache.update({key: current}) -%}
  {%- do log('spark_incremental: ' ~ current.cfg.model ~ ': planned ' ~ current.plan.action ~ ' (is_incremental '
      ~ (current.plan.is_incremental | lower) ~ ', window ' ~ spark_incremental._along_window_sql(
      current.cfg.along or 'along', current.plan.window, none) ~ '): ' ~ current.plan.reason, info=false) -%}
  {{- return(current) -}}
{%- endmacro %}


{#- The plan of a managed node as _managed_run_plan computes it (the one function; show_state
    calls it for every managed model, reading only). target: the node's relation.
    recover: repair leftovers first (a run); full_refresh: this run's --full-refresh for
    the node; preview: not in a run (show_state, plan): nothing is written (the refresh
    plan is computed, not recorded) and the run limits of the last run do not decide
    skip_without_new_events; limits: with preview, the next run's limits (get_run_limits)
    decide it instead (the plan preview, spark_incremental.plan). -#}
{% macro _managed_plan_for_node(node, target, recover, full_refresh, preview=false, limits=none) -%}
  {%- set cfg = spark_incremental._managed_config(node) -%}
  {%- set recovered = spark_incremental._managed_recover(target) if recover else [] -%}
  {%- set existing = spark_incremental._managed_exists(target) -%}
  {%- if existing is none and recovered | length == 0 -%}
    {%- set existing = spark_incremental._managed_exists(spark_incremental._managed_sibling(target, '__si_old')) -%}
  {%- endif -%}
  {%- set state = spark_incremental._managed_read_state(cfg.model) -%}
  {%- set cfg = spark_incremental._managed_along_known(cfg, state, existing) -%}
  {%- set now = spark_incremental.now() -%}
  {%- set run_flags = {
      'full_refresh': full_refresh,
      'target_exists': existing is not none,
      'target_is_table': existing is not none and not existing.is_view,
      'change_plan': spark_incremental._refresh_plan_found(node).plan if preview else spark_incremental.refresh_plan(node),
      'no_new_events': cfg.skip_without_new_events and (
          (spark_incremental._no_new_events_reason(limits, cfg.model) is not none) if (preview and limits is not none)
          else (not preview and not spark_incremental.is_run_with_new_events(cfg.model))),
      'skip_write': none if preview else spark_incremental._skip_write_reason(node),
  } -%}
  {%- set plan = spark_incremental._managed_plan(cfg, state, now, run_flags) -%}
  {%- if plan.action == 'append' and state is not none and run_flags.target_is_table -%}
    {%- do run_flags.update({'unrecorded_rows': spark_incremental._managed_unrecorded_rows(cfg, state, existing)}) -%}
    {%- set plan = spark_incremental._managed_plan(cfg, state, now, run_flags) -%}
  {%- endif -%}
  {{- return({'cfg': cfg, 'state': state, 'now': now, 'flags': run_flags, 'plan': plan,
      'existing': existing, 'recovered': recovered}) -}}
{%- endmacro %}


{#- The along column's type as the run's plan can know it before the model's SQL exists:
    the type recorded with the high-water mark, else the existing table's column, else
    none (a first build). Returns cfg with along_type / along_kind and the window bounds
    of that type (_managed_bounds). The materialization, which knows the query's type,
    applies _managed_bounds again when this was none (_managed_plan_for_query). -#}
{% macro _managed_along_known(cfg, state, existing) -%}
  {%- set result = {} -%}
  {%- do result.update(cfg) -%}
  {%- set along_type = state.high_water_mark_type if state else none -%}
  {%- if cfg.along and along_type is none and existing is not none and not existing.is_view -%}
    {%- for column in adapter.get_columns_in_relation(existing) if column.name | lower == cfg.along | lower -%}
      {%- set along_type = column.dtype | lower -%}
    {%- endfor -%}
  {%- endif -%}
  {%- set kind = spark_incremental._along_kind(along_type) if cfg.along and along_type else none -%}
  {%- do result.update({'along_type': along_type if cfg.along else none, 'along_kind': kind}) -%}
  {%- do result.update(spark_incremental._managed_bounds(cfg, kind)) -%}
  {{- return(result) -}}
{%- endmacro %}


{#- The run's plan once the query's columns are known (the materialization): when the plan
    could not know the along column's type (a first build) and it is an integer, the
    date-like default bounds of its window are dropped (_managed_bounds). Nothing else
    changes: the SQL was rendered for this plan. -#}
{% macro _managed_plan_for_query(plan, planned_cfg, cfg) -%}
  {%- if planned_cfg.along_kind is none and cfg.along_kind == 'integer' -%}
    {%- set bounds = spark_incremental._managed_bounds(planned_cfg, 'integer') -%}
    {%- if plan.window.lower == planned_cfg.min -%}
      {%- do plan.window.update({'lower': bounds.min}) -%}
    {%- endif -%}
    {%- if plan.window.upper == planned_cfg.max -%}
      {%- do plan.window.update({'upper': bounds.max}) -%}
    {%- endif -%}
  {%- endif -%}
  {{- return(plan) -}}
{%- endmacro %}


{#- The identity of the described changes that reach a model: their types and tables,
    and the operations with their conditions (the scopes), e.g. "ADD_ROWS on sales: add
    rows where (sales.date = '2024-01-02')". Kept in its state when it applies them. -#}
{% macro _changes_identity(change_plan) -%}
  {%- set types = [] -%}
  {%- for change in change_plan.changes -%}
    {%- do types.append(change.type ~ ' on ' ~ change.table) -%}
  {%- endfor -%}
  {%- set operations = [] -%}
  {%- for operation in change_plan.operations -%}
    {%- do operations.append(operation.operation ~ ' ' ~ operation.condition) -%}
  {%- endfor -%}
  {{- return(types | join(', ') ~ ': ' ~ operations | join('; ')) -}}
{%- endmacro %}


{#- Did this model already add the rows of these very changes (its state records their
    identity)? Only adding is not idempotent: a replaced or removed scope can be applied
    again with the same result, so those are never skipped. -#}
{% macro _changes_already_added(change_plan, state) -%}
  {%- if state is none or change_plan.full_refresh -%}
    {{- return(false) -}}
  {%- endif -%}
  {%- set adds = change_plan.operations | selectattr('operation', 'equalto', 'add rows where') | list -%}
  {{- return(adds | length > 0
      and (state.state or {}).get('changes_applied') == spark_incremental._changes_identity(change_plan)) -}}
{%- endmacro %}

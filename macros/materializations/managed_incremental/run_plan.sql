{#- The plan of a model as every caller gets it: the materialization, the model's SQL
    (is_incremental), show_state and the plan preview all read _managed_plan's result
    through these, never a copy of its rules. -#}


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
      spark_incremental._command_writes(), should_full_refresh()) -%}
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
    {%- set existing = spark_incremental._managed_exists(spark_incremental._managed_side_tables(target).old) -%}
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
  {#- the recorded type is the along column's only while the state's along is this one (a
      changed along rebuilds the model, and its first build must not read the new column
      with the old one's type) -#}
  {%- set along_type = state.high_water_mark_type
      if state and spark_incremental._managed_along_changed(cfg, state) is none else none -%}
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


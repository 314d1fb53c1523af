{#- dbt run-operation spark_incremental.show_state
    Prints the manifest as a table: each model the package keeps state for (tracked events
    models and managed_incremental models), its kind, its progress, its last refresh, and
    what the next run would do; first, who holds the run lock, if anyone (_run_lock_status).
    Reads only. -#}
{% macro show_state() -%}
  {{- return(adapter.dispatch('show_state', 'spark_incremental')()) -}}
{%- endmacro %}


{% macro default__show_state() -%}
  {%- if not execute -%}
    {{- return('') -}}
  {%- endif -%}
  {%- set now = spark_incremental.now() -%}
  {%- set log_relation = spark_incremental.manifest_log_relation() -%}
  {#- one read of the log: the open locks and the state -#}
  {%- set lock = spark_incremental._run_lock_status() -%}
  {%- set forgets = spark_incremental._preview_forget_missing_tables() -%}
  {%- set current = spark_incremental._manifest_current_rows(at_lock=true) -%}
  {%- set tracked = spark_incremental.tracked_models() -%}
  {%- set managed = spark_incremental._managed_nodes() -%}
  {%- do spark_incremental._log('state at ' ~ spark_incremental._ts_text(now) ~ ' UTC, from ' ~ log_relation) -%}
  {%- for line in lock.lines + forgets -%}
    {%- do spark_incremental._log(line) -%}
  {%- endfor -%}
  {%- set limits = none -%}
  {%- if tracked | length > 0 -%}
    {%- set limits = spark_incremental.get_run_limits() -%}
  {%- endif -%}
  {%- set header = ['model', 'kind', 'progress', 'last refresh', 'next run'] -%}
  {%- set table = [header] -%}
  {%- for name in (tracked + managed.keys() | list) | unique | sort -%}
    {%- set row = current.get(name, {}) -%}
    {%- set kinds = [] -%}
    {%- set progress = [] -%}
    {%- set next_run = [] -%}
    {%- if name in tracked -%}
      {%- do kinds.append('events') -%}
      {%- do progress.append('last_success ' ~ (spark_incremental._ts_text(row.get('last_success')) or 'none')) -%}
      {%- do next_run.append('state ' ~ limits.state ~ ": events '" ~ spark_incremental._ts_text(limits.lower_limit)
          ~ "' to '" ~ spark_incremental._ts_text(limits.upper_limit) ~ "'") -%}
    {%- endif -%}
    {%- if name in managed -%}
      {%- set node = managed[name] -%}
      {%- set planned = spark_incremental._managed_plan_for_node(node, api.Relation.create(
          database=node.database, schema=node.schema, identifier=node.alias, type='table'),
          false, false, preview=true, limits=limits) -%}
      {%- do kinds.append('managed: ' ~ planned.cfg.mutability_type) -%}
      {%- if row.get('high_water_mark') is not none -%}
        {%- do progress.append('high-water mark ' ~ row.high_water_mark ~ ' (' ~ row.high_water_mark_type ~ ')') -%}
      {%- endif -%}
      {%- do next_run.append(spark_incremental._managed_next_run_text(planned.plan)) -%}
    {%- endif -%}
    {%- do table.append([name, kinds | join(' + '), progress | join('; ') or '-',
                         row.get('last_refresh') or '-', next_run | join('; ')]) -%}
  {%- endfor -%}
  {%- if table | length == 1 -%}
    {%- do spark_incremental._log('no tracked or managed_incremental models in this project') -%}
    {{- return('') -}}
  {%- endif -%}
  {%- do spark_incremental._log_table(table) -%}
  {#- progress kept for a model that is not tracked now (disabled, deleted or renamed) -#}
  {%- for departed in spark_incremental._departed_models(current, tracked) -%}
    {%- do spark_incremental._log(departed.line) -%}
  {%- endfor -%}
  {{- return('') -}}
{%- endmacro %}


{#- Enabled managed_incremental models by name. -#}
{% macro _managed_nodes() -%}
  {%- set found = {} -%}
  {%- for node in graph.nodes.values() -%}
    {%- if node.resource_type == 'model' and node.config.materialized == 'managed_incremental' -%}
      {%- do found.update({node.name: node}) -%}
    {%- endif -%}
  {%- endfor -%}
  {{- return(found) -}}
{%- endmacro %}


{#- What the next run of a managed_incremental model would do, in words, from its plan
    (the one the run computes: _managed_plan_for_node): 'append: high-water mark
    2024-01-05', 'skip: next refresh due at ...', 'build: full refresh: ...'. -#}
{% macro _managed_next_run_text(plan) -%}
  {%- set reason = (plan.reason or '').replace('skipped: ', '') -%}
  {%- if plan.action == 'intervals' or (plan.get('work') and plan.work.batches | length > 0) -%}
    {#- more than one batch is an upper bound: the run's probe (_interval_probe) first
        records those without rows as done, without a batch -#}
    {%- set count = plan.work.batches | length -%}
    {%- set reason = reason ~ ' (' ~ ('up to ' ~ count ~ ' batches' if count > 1 else count ~ ' batch') ~ ')' -%}
  {%- endif -%}
  {{- return(plan.action ~ ': ' ~ reason) -}}
{%- endmacro %}

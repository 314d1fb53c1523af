{#- dbt run-operation spark_incremental.plan
    What the next dbt run will do and what it will read, before it starts. Reads only: it
    takes no run lock, writes nothing and never waits for a running pipeline. Every
    decision is the one the run makes: the run limits (get_run_limits), the rule for
    models with no new events (_no_new_events_reason), the managed_incremental plan
    (_managed_plan_for_node with preview). What a model reads is listed from metadata
    (_plan_scan): the events table's partitions in the window's literal bounds (the
    partition filter of every window scan, _events_partition_filter), and for the other
    models the tables they depend on. With spark_incremental__plan_format json it also
    logs one line 'spark_incremental plan json: {...}'. It also says who holds the run
    lock, if anyone, and whether the next run would be refused or take it over
    (_run_lock_status), and names the models the manifest holds progress for that left
    the project (_departed_models, as show_state). With described changes it prints the refresh plan block the run's
    start hook logs (_format_refresh_plan of the models' own refresh plans). A rebuild the
    run refuses (config full_refresh=false) is shown as the run refuses it: the model's
    action is 'refused', and when the start hook refuses it (_change_plan_refusal) the
    plan says first that the run stops there, with the hook's message (_plan_refused).
    run-operation takes no selector: the plan is that of a run of every model. -#}
{% macro plan() -%}
  {{- return(adapter.dispatch('plan', 'spark_incremental')()) -}}
{%- endmacro %}


{% macro default__plan() -%}
  {%- if not execute -%}
    {{- return('') -}}
  {%- endif -%}
  {%- set plan_format = spark_incremental.get_config_var('plan_format') -%}
  {%- do spark_incremental._check_restate_models(selection=false) -%}
  {%- set now = spark_incremental.now() -%}
  {%- set tracked = spark_incremental.tracked_models() -%}
  {%- set managed = spark_incremental._managed_nodes() -%}
  {#- first: its read of the log brings the manifest state the run limits then use -#}
  {%- set lock = spark_incremental._run_lock_status() -%}
  {#- what the run's start hook forgets first (a tracked table that is gone), as it does -#}
  {%- set forgets = spark_incremental._preview_forget_missing_tables() -%}
  {%- set entries = [] -%}
  {%- set limits = none -%}
  {%- if spark_incremental._events_enabled() and spark_incremental._node_by_name('spark_incremental_base_new_event_limits') is not none -%}
    {%- set limits = spark_incremental.get_run_limits() -%}
    {%- do entries.extend(spark_incremental._plan_base_chain(limits, tracked, managed, now)) -%}
  {%- endif -%}
  {%- set listed = entries | map(attribute='model') | list -%}
  {%- for name in (tracked + managed.keys() | list) | unique | sort if name not in listed -%}
    {%- do entries.append(spark_incremental._plan_model(spark_incremental._node_by_name(name), limits,
        name in tracked, managed.get(name))) -%}
  {%- endfor -%}
  {#- run-operation takes no selector: the plan is a run of every model (dbt run, no --select) -#}
  {%- do spark_incremental._log('plan of the next dbt run of every model (no --select) at '
      ~ spark_incremental._ts_text(now) ~ ' UTC (nothing was written)') -%}
  {%- for line in lock.lines + forgets -%}
    {%- do spark_incremental._log(line) -%}
  {%- endfor -%}
  {%- set refused = spark_incremental._plan_refused(entries) -%}
  {%- if refused is not none -%}
    {%- do spark_incremental._log('the next run will be refused (its on-run-start hook stops it before any model'
        ~ ' runs; nothing is written), with: ' ~ refused) -%}
  {%- endif -%}
  {%- if entries | length == 0 -%}
    {%- do spark_incremental._log('no tracked or managed_incremental models and no events pipeline in this project') -%}
  {%- endif -%}
  {%- set total = spark_incremental._plan_total(entries) -%}
  {%- do spark_incremental._plan_print(entries, total) -%}
  {#- progress kept for a model that is not tracked now, as show_state says (the state came
      with the lock's read) -#}
  {%- set departed = spark_incremental._departed_models(spark_incremental._manifest_current_rows(at_lock=true), tracked) -%}
  {%- for model in departed -%}
    {%- do spark_incremental._log(model.line) -%}
  {%- endfor -%}
  {%- for entry in entries if entry.get('refused') and entry.refused.by == 'materialization' -%}
    {%- do spark_incremental._log(entry.model ~ ' will fail in the next run (its materialization refuses the'
        ~ ' rebuild; its dependents are skipped), with: ' ~ entry.refused.message) -%}
  {%- endfor -%}
  {#- described changes: the refresh plan block the run's on-run-start hook logs (plan_changes),
      from the models' own refresh plans, for a run that selects every model (so no model
      is listed as not selected) -#}
  {%- set changes = spark_incremental.get_changes() if spark_incremental._raw_changes() | length > 0 else [] -%}
  {%- if changes | length > 0 -%}
    {%- do spark_incremental._log(spark_incremental._format_refresh_plan(changes,
        entries | selectattr('refresh_plan') | map(attribute='refresh_plan') | list)) -%}
  {%- endif -%}
  {%- set restate = none -%}
  {%- if limits is not none and limits.state == 5 -%}
    {%- set restate = {'start': spark_incremental._ts_text(limits.lower_limit),
                       'end': spark_incremental._ts_text(limits.upper_limit)} -%}
  {%- endif -%}
  {%- if plan_format == 'json' -%}
    {%- do log('spark_incremental plan json: ' ~ tojson({'generated_at': spark_incremental._ts_text(now),
        'models': entries, 'total': total, 'lock': lock.locks,
        'departed': departed | map(attribute='model') | list,
        'changes': spark_incremental._plan_json_safe(changes), 'restate': restate, 'refused': refused,
        'selection': 'every model'}, sort_keys=true), info=true) -%}
  {%- endif -%}
  {{- return('') -}}
{%- endmacro %}


{#- The message with which the next run's on-run-start hook stops the run, or none: the
    first refusal (_change_plan_refusal) among the models in the order the hook checks
    them (plan_changes: _managed_incremental_nodes). -#}
{% macro _plan_refused(entries) -%}
  {%- set by_model = {} -%}
  {%- for entry in entries -%}
    {%- do by_model.update({entry.model: entry}) -%}
  {%- endfor -%}
  {%- for node in spark_incremental._managed_incremental_nodes() -%}
    {%- set refused = by_model.get(node.name, {}).get('refused') -%}
    {%- if refused and refused.by == 'on-run-start' -%}
      {{- return(refused.message) -}}
    {%- endif -%}
  {%- endfor -%}
  {{- return(none) -}}
{%- endmacro %}

{#- on-run-start: validate the described changes and plan the refresh of every selected
    managed_incremental model that reads a changed table, before any model runs. Logs the
    plan as one block and appends it to spark_incremental_refresh_plan; the materialization
    then applies exactly the recorded plan. Bad input stops the run here, before anything
    is written, and so does a rebuild the changes ask for of a model whose config says
    full_refresh=false (_change_plan_refusal). start_run() plans the same way, twice: once
    before the run lock, as a check, and once under it, for the plan it records
    (_settle_refresh_plan). Use as: on-run-start: "{{ spark_incremental.plan_changes() }}" -#}
{% macro plan_changes() -%}
  {{- return(adapter.dispatch('plan_changes', 'spark_incremental')()) -}}
{%- endmacro %}


{% macro default__plan_changes() -%}
  {%- if not execute -%}
    {{- return('') -}}
  {%- endif -%}
  {%- set changes = spark_incremental.get_changes() -%}
  {%- if changes | length > 0 -%}
    {%- do spark_incremental._recover_reached_models(changes) -%}
    {%- do spark_incremental._settle_refresh_plan(spark_incremental._refresh_plans(changes)) -%}
  {%- endif -%}
  {{- return('') -}}
{%- endmacro %}


{#- The refresh plans of the selected managed_incremental models that `changes` reach,
    reading their tables and states and writing nothing: {plans, unselected (the names of
    reached models this run does not select), refusal (the message that stops the run, of
    the first refused plan: _change_plan_refusal), changes}. -#}
{% macro _refresh_plans(changes) -%}
  {%- set planned = {'changes': changes, 'plans': [], 'unselected': [], 'refusal': none} -%}
  {%- set selected = spark_incremental._selected_ids() -%}
  {%- for node in spark_incremental._managed_incremental_nodes() -%}
    {%- set plan = spark_incremental._refresh_plan_for_node(node, changes) -%}
    {%- if plan is not none -%}
      {%- if node.unique_id in selected -%}
        {%- do planned.plans.append(plan) -%}
      {%- else -%}
        {%- do planned.unselected.append(node.name) -%}
      {%- endif -%}
    {%- endif -%}
  {%- endfor -%}
  {%- for plan in planned.plans if planned.refusal is none -%}
    {%- do planned.update({'refusal': spark_incremental._change_plan_refusal(graph.nodes[plan.unique_id], plan)}) -%}
  {%- endfor -%}
  {{- return(planned) -}}
{%- endmacro %}


{#- Stop the run when the plans (_refresh_plans) ask for a rebuild that a model's config
    refuses: log the plan block first, so the message can be read beside it. Under the
    start hook's run lock, _stop_run releases the lock first, since the end hook does not
    run after a failed start hook. -#}
{% macro _stop_on_refused_plan(planned) -%}
  {%- if planned.refusal is none -%}
    {{- return(none) -}}
  {%- endif -%}
  {%- do spark_incremental._log_refresh_plan(
      spark_incremental._format_refresh_plan(planned.changes, planned.plans, planned.unselected)) -%}
  {%- do spark_incremental._stop_run(planned.refusal) -%}
{%- endmacro %}


{#- The plan the run applies: stop on a refusal (_stop_on_refused_plan), else log the
    block and record it for the materialization. -#}
{% macro _settle_refresh_plan(planned) -%}
  {%- do spark_incremental._stop_on_refused_plan(planned) -%}
  {%- do spark_incremental._log_refresh_plan(
      spark_incremental._format_refresh_plan(planned.changes, planned.plans, planned.unselected)) -%}
  {%- do spark_incremental._record_refresh_plan(planned.plans) -%}
{%- endmacro %}

{#- on-run-start: validate the described changes and plan the refresh of every selected
    managed_incremental model that reads a changed table, before any model runs. Logs the
    plan as one block and appends it to spark_incremental_refresh_plan; the materialization
    then applies exactly the recorded plan. Bad input stops the run here, before anything
    is written, and so does a rebuild the changes ask for of a model whose config says
    full_refresh=false (_change_plan_refusal). Use as: on-run-start: "{{ spark_incremental.plan_changes() }}" -#}
{% macro plan_changes() -%}
  {{- return(adapter.dispatch('plan_changes', 'spark_incremental')()) -}}
{%- endmacro %}


{% macro default__plan_changes() -%}
  {%- if not execute -%}
    {{- return('') -}}
  {%- endif -%}
  {%- set changes = spark_incremental.get_changes() -%}
  {%- if changes | length == 0 -%}
    {{- return('') -}}
  {%- endif -%}
  {%- set plans = [] -%}
  {%- set unselected = [] -%}
  {%- set selected = spark_incremental._selected_ids() -%}
  {%- for node in spark_incremental._managed_incremental_nodes() -%}
    {%- set plan = spark_incremental._refresh_plan_for_node(node, changes) -%}
    {%- if plan is not none -%}
      {%- if node.unique_id in selected -%}
        {%- do plans.append(plan) -%}
      {%- else -%}
        {%- do unselected.append(node.name) -%}
      {%- endif -%}
    {%- endif -%}
  {%- endfor -%}
  {%- do spark_incremental._log_refresh_plan(spark_incremental._format_refresh_plan(changes, plans, unselected)) -%}
  {#- a rebuild the changes ask for, of a model that keeps its table: stop before any model -#}
  {%- for plan in plans -%}
    {%- set refusal = spark_incremental._change_plan_refusal(graph.nodes[plan.unique_id], plan) -%}
    {%- if refusal is not none -%}
      {%- do exceptions.raise_compiler_error(refusal) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- do spark_incremental._record_refresh_plan(plans) -%}
  {{- return('') -}}
{%- endmacro %}

{#- The refresh plan of the model being built, for the materialization: the plan the
    on-run-start hook recorded in this invocation, or, when the hook is not installed,
    computed now, logged and recorded. none when no described change reaches the model. -#}
{% macro refresh_plan(model_node) -%}
  {{- return(adapter.dispatch('refresh_plan', 'spark_incremental')(model_node)) -}}
{%- endmacro %}


{% macro default__refresh_plan(model_node) -%}
  {%- set found = spark_incremental._refresh_plan_found(model_node) -%}
  {%- if found.computed is not none -%}
    {%- do spark_incremental._log_refresh_plan(spark_incremental._format_refresh_plan(found.changes, [found.computed])) -%}
    {%- do spark_incremental._record_refresh_plan([found.computed]) -%}
  {%- endif -%}
  {{- return(found.plan) -}}
{%- endmacro %}


{#- The refresh plan of a model, reading only: {plan (none when no described change
    reaches the model), computed (the plan when it was computed now, not read from this
    invocation's record: refresh_plan logs and records it), changes}. The plan preview
    (spark_incremental.plan) uses it as it is. -#}
{% macro _refresh_plan_found(model_node) -%}
  {%- set found = {'plan': none, 'computed': none, 'changes': none} -%}
  {%- if not spark_incremental._can_query() or spark_incremental._raw_changes() | length == 0 -%}
    {{- return(found) -}}
  {%- endif -%}
  {%- set node = graph.nodes.get(model_node.unique_id) or model_node -%}
  {%- set upstream = spark_incremental._upstream_ids(node) -%}
  {%- set reached = [] -%}
  {%- for raw in spark_incremental._raw_changes() if raw is mapping and raw.get('table') -%}
    {%- if spark_incremental._change_table_node(raw.table).unique_id in upstream -%}
      {%- do reached.append(raw.table) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- if reached | length == 0 -%}
    {{- return(found) -}}
  {%- endif -%}
  {%- set recorded = spark_incremental._recorded_refresh_plan(node.name) -%}
  {%- if recorded is not none -%}
    {%- do found.update({'plan': recorded}) -%}
    {{- return(found) -}}
  {%- endif -%}
  {%- set changes = spark_incremental.get_changes() -%}
  {%- set plan = spark_incremental._refresh_plan_for_node(node, changes) -%}
  {%- do found.update({'plan': plan, 'computed': plan, 'changes': changes}) -%}
  {{- return(found) -}}
{%- endmacro %}

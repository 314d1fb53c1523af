{#- The refresh plan of the model being built, for the materialization: the plan the
    on-run-start hook recorded in this invocation, or, when the hook is not installed,
    computed now, logged and recorded. none when no described change reaches the model. -#}
{% macro refresh_plan(model_node) -%}
  {{- return(adapter.dispatch('refresh_plan', 'spark_incremental')(model_node)) -}}
{%- endmacro %}


{% macro default__refresh_plan(model_node) -%}
  {%- if not spark_incremental._can_query() or spark_incremental._raw_changes() | length == 0 -%}
    {{- return(none) -}}
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
    {{- return(none) -}}
  {%- endif -%}
  {%- set recorded = spark_incremental._recorded_refresh_plan(node.name) -%}
  {%- if recorded is not none -%}
    {{- return(recorded) -}}
  {%- endif -%}
  {%- set changes = spark_incremental.get_changes() -%}
  {%- set plan = spark_incremental._refresh_plan_for_node(node, changes) -%}
  {%- if plan is not none -%}
    {%- do spark_incremental._log_refresh_plan(spark_incremental._format_refresh_plan(changes, [plan])) -%}
    {%- do spark_incremental._record_refresh_plan([plan]) -%}
  {%- endif -%}
  {{- return(plan) -}}
{%- endmacro %}

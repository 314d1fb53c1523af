{#- The on-run-start hook's rule for a model that described changes reach: when the
    model's refresh plan is a full refresh, its config says full_refresh=false and it has
    a table, the message that stops the run before any model runs
    (_kept_table_refusal); none otherwise. _stop_on_refused_plan stops the run with it;
    the plan preview (spark_incremental.plan) shows it. node: the model's node; plan: its
    refresh plan (_refresh_plan_for_node). -#}
{% macro _change_plan_refusal(node, plan) -%}
  {%- if plan is none or not plan.full_refresh -%}
    {{- return(none) -}}
  {%- endif -%}
  {%- set refusal = spark_incremental._kept_table_refusal(node, 'full refresh: ' ~ plan.reason) -%}
  {%- if refusal is none or spark_incremental._model_table_columns(node) is none -%}
    {{- return(none) -}}
  {%- endif -%}
  {{- return(refusal) -}}
{%- endmacro %}

{#- The on-run-start hook's rule for a model that described changes reach: when the
    model's refresh plan is a full refresh, its config says full_refresh=false and it has
    a table, the message that stops the run before any model runs
    (_kept_table_refusal); when the plan applies changes to a model with time intervals
    that spark_incremental__restate also names, the message that the restatement would be
    lost; none otherwise. _stop_on_refused_plan stops the run with it; the plan
    preview (spark_incremental.plan) shows it. node: the model's node; plan: its refresh
    plan (_refresh_plan_for_node). -#}
{% macro _change_plan_refusal(node, plan) -%}
  {%- if plan is none -%}
    {{- return(none) -}}
  {%- endif -%}
  {%- if not plan.full_refresh -%}
    {#- a run that applies described changes to a model does not process its intervals, so
        a restatement of it passed along (once, by an orchestrator) would be lost -#}
    {%- if node.config.get('time_column') and node.name in spark_incremental._restated_model_names() -%}
      {{- return("spark_incremental: spark_incremental__restate names model '" ~ node.name ~ "', to which"
          ~ " this run's described changes apply (" ~ plan.operations | map(attribute='operation') | unique | join(', ')
          ~ "); a run that applies changes to a model processes none of its intervals, so the restatement"
          ~ " would be lost. Nothing was written: run the changes and the restatement separately (either"
          ~ " first), or describe the restated range as a change (MIXED_CHANGES on the source).") -}}
    {%- endif -%}
    {{- return(none) -}}
  {%- endif -%}
  {%- set refusal = spark_incremental._kept_table_refusal(node, 'full refresh: ' ~ plan.reason) -%}
  {%- if refusal is none or spark_incremental._model_table_columns(node) is none -%}
    {{- return(none) -}}
  {%- endif -%}
  {{- return(refusal) -}}
{%- endmacro %}

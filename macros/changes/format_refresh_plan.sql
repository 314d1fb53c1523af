{#- The plan as one readable block of text: the changes, each selected model's operations,
    and each model that reads a changed table but is not selected (unselected: the run
    does not touch it; the plan preview, a run of every model, never lists one). -#}
{% macro _format_refresh_plan(changes, plans, unselected=[]) -%}
  {%- set lines = ['refresh plan for ' ~ changes | length ~ ' described change(s):'] -%}
  {%- for change in changes -%}
    {%- do lines.append('  change   ' ~ change.table ~ ': ' ~ change.type ~ (' where ' ~ change.scope if change.scope else ' (no scope)')) -%}
  {%- endfor -%}
  {%- for plan in plans -%}
    {%- for text in spark_incremental._format_refresh_plan_operations(plan) -%}
      {%- do lines.append('  model    ' ~ plan.model ~ ': ' ~ text) -%}
    {%- endfor -%}
  {%- endfor -%}
  {%- if plans | length == 0 -%}
    {%- do lines.append('  no selected managed_incremental model reads a changed table') -%}
  {%- endif -%}
  {%- for name in unselected -%}
    {%- do lines.append('  unselected ' ~ name ~ ": reads a changed table but is not in this run's selection"
        ~ ' (--select), so the changes do not reach it: run it with the same changes') -%}
  {%- endfor -%}
  {{- return(lines | join('\n')) -}}
{%- endmacro %}


{#- One model's operations in words, one text per operation, as the block shows them
    after 'model <name>: ': 'add rows where (sales.date = ...)', 'replace scope (...) (why)',
    'full refresh, because <reason>'. The plan preview (spark_incremental.plan) shows
    these very texts for each model. -#}
{% macro _format_refresh_plan_operations(plan) -%}
  {%- set texts = [] -%}
  {%- for operation in plan.operations -%}
    {%- if operation.operation == 'full refresh' -%}
      {%- do texts.append('full refresh, because ' ~ operation.reason) -%}
    {%- else -%}
      {%- do texts.append(operation.operation ~ ' ' ~ operation.condition
          ~ (' (' ~ operation.reason ~ ')' if operation.reason else '')) -%}
    {%- endif -%}
  {%- endfor -%}
  {{- return(texts) -}}
{%- endmacro %}


{#- Log the block at info when spark_incremental__log_plan is true, at debug otherwise. -#}
{% macro _log_refresh_plan(text) -%}
  {%- do log('spark_incremental: ' ~ text, info=spark_incremental.get_config_var('log_plan')) -%}
{%- endmacro %}

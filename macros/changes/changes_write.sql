{#- managed_incremental's write path for action 'apply_changes': apply the model's refresh
    plan in scope; for a model with time intervals, only within its done intervals
    (_changes_within), then process the plan's missing (and restated) intervals
    (_intervals_write), each batch replacing its whole range from the source as it is now.
    Returns the materialization's result dict {rows, partitions, max, detail, cleanup,
    intervals (done ranges as text, when batches ran)}; max is the largest along value of
    the table afterwards. -#}
{% macro _changes_write(plan, cfg, target, sql, target_desc) -%}
  {%- set done = spark_incremental._apply_refresh_plan(plan.change_plan, target, sql, target_desc,
      spark_incremental._changes_within(plan, cfg)) -%}
  {%- set result = {'rows': done.rows, 'partitions': done.partitions, 'detail': done.detail, 'cleanup': done.cleanup} -%}
  {%- if plan.get('work') and plan.work.batches | length > 0 -%}
    {#- the change's apply table goes before the first batch builds its own, as between two
        operations of the plan: the change's overwrite is complete -#}
    {%- for relation in done.cleanup -%}
      {%- do adapter.drop_relation(relation) -%}
    {%- endfor -%}
    {%- set batches = spark_incremental._intervals_write(plan, cfg, target, none, sql, target_desc) -%}
    {%- do result.update({
        'rows': done.rows + batches.rows,
        'partitions': batches.partitions if done.partitions is none else done.partitions + (batches.partitions or 0),
        'detail': done.detail ~ '; then ' ~ batches.detail,
        'cleanup': [],
        'intervals': batches.intervals,
    }) -%}
  {%- endif -%}
  {%- do result.update({'max': spark_incremental._managed_stats(target, cfg)[1] if cfg.along else none}) -%}
  {{- return(result) -}}
{%- endmacro %}

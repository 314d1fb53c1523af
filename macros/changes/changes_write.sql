{#- managed_incremental's write path for action 'apply_changes': apply the model's refresh
    plan in scope. Returns the materialization's result dict {rows, partitions, max,
    detail, cleanup}; max is the largest along value of the table afterwards. -#}
{% macro _changes_write(plan, cfg, target, sql, target_desc) -%}
  {%- set done = spark_incremental._apply_refresh_plan(plan.change_plan, target, sql, target_desc) -%}
  {%- set max_along = spark_incremental._managed_stats(target, cfg)[1] if cfg.along else none -%}
  {{- return({'rows': done.rows, 'partitions': done.partitions, 'max': max_along, 'detail': done.detail,
              'cleanup': done.cleanup}) -}}
{%- endmacro %}

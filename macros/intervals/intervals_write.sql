{#- managed_incremental's write path for action 'intervals': on a (re)build, create the
    table empty beside the old one and swap it in (the done intervals are forgotten),
    then process the plan's batches. Returns the materialization's result dict
    {rows, partitions, max, detail, intervals (done ranges as text)}. -#}
{% macro _intervals_write(plan, cfg, target, existing, sql, target_desc) -%}
  {%- if plan.rebuild -%}
    {%- do spark_incremental._managed_build(plan, cfg, target, existing,
        'select * from (\n' ~ sql ~ '\n) as si_empty where false') -%}
    {%- set target_desc = spark_incremental._managed_describe(target) -%}
  {%- endif -%}
  {%- if plan.work.batches | length == 0 -%}
    {{- return({'rows': 0, 'partitions': none, 'max': none, 'intervals': spark_incremental._ranges_to_text(plan.work.done),
                'detail': 'no ready ' ~ cfg.intervals.unit ~ ' intervals yet (the first ends at or after '
                    ~ spark_incremental._ts_text(plan.work.end) ~ ')'}) -}}
  {%- endif -%}
  {%- set state_row = {
      'mutability_type': cfg.mutability_type,
      'last_refresh': spark_incremental.now(),
      'state': {'fingerprint': cfg.fingerprint, 'plan_action': 'intervals'},
  } -%}
  {%- set done = spark_incremental._run_interval_batches(cfg.model, cfg.intervals, target, sql, target_desc,
      plan.work, state_row) -%}
  {{- return({'rows': done.rows, 'partitions': done.partitions, 'max': none, 'detail': done.detail,
              'intervals': spark_incremental._ranges_to_text(done.done)}) -}}
{%- endmacro %}

{#- A managed_incremental model's next run from its plan (_managed_plan_for_node, the run's
    own): {text, plan, refresh_plan, batches_upper_bound}. text: the action and reason (_managed_next_run_text),
    then what the run logs of it: the operations of its refresh plan for described changes
    (_format_refresh_plan_operations, the texts of the run's refresh plan block; for a
    time-interval model after the done intervals they reach, _changes_within), the time
    intervals it processes and the ranges a restatement redoes, and the notes the run logs
    (kept by forward_only, changes already applied); with more than one batch, that they
    are an upper bound (the run's probe, _interval_probe, first drops the batches without
    rows; it runs the model's compiled SQL, which a run-operation does not have). plan:
    the run's plan object in JSON-safe form, without its change_plan; refresh_plan: the
    refresh plan of the described changes that reach the model (also when they make it
    rebuild), with lines (those texts), or none; batches_upper_bound: the batches are an
    upper bound. -#}
{% macro _plan_managed_detail(planned) -%}
  {%- set plan = planned.plan -%}
  {%- set parts = [spark_incremental._managed_next_run_text(plan)] -%}
  {%- set refresh_plan = none -%}
  {%- if planned.flags.change_plan is not none -%}
    {%- set refresh_plan = {} -%}
    {%- do refresh_plan.update(planned.flags.change_plan) -%}
    {%- do refresh_plan.update({'lines': spark_incremental._format_refresh_plan_operations(refresh_plan)}) -%}
    {%- if plan.action == 'apply_changes' -%}
      {#- a time-interval model: the change reaches only its done intervals, as in the run -#}
      {%- set within = spark_incremental._changes_within(plan, planned.cfg) -%}
      {%- do parts.append(('changes ' ~ within.text ~ ': ' if within is not none else '')
          ~ refresh_plan.lines | join('; ')) -%}
    {%- endif -%}
  {%- endif -%}
  {%- if plan.get('work') and plan.work.batches | length > 0 -%}
    {%- set batches = plan.work.batches -%}
    {%- do parts.append(spark_incremental._range_text(batches[0])
        ~ (' .. ' ~ spark_incremental._range_text(batches[-1]) if batches | length > 1 else '')) -%}
  {%- endif -%}
  {%- set texts = [parts | join(': ')] -%}
  {%- for pair in plan.get('restated') or [] -%}
    {%- do texts.append('restate redoes ' ~ spark_incremental._range_text(pair)) -%}
  {%- endfor -%}
  {%- for note in [plan.get('kept')] if note -%}
    {%- do texts.append(note) -%}
  {%- endfor -%}
  {#- more than one batch: the run first probes them (_interval_probe) with the model's
      compiled SQL, which a run-operation does not have: the batches are an upper bound -#}
  {%- set upper_bound = plan.get('work') is not none and plan.work.batches | length > 1 -%}
  {%- if upper_bound -%}
    {%- do texts.append("an upper bound: the run's probe first records the batches without rows in the model"
        ~ ' or its table done without a batch (the preview has no compiled model SQL to probe with)') -%}
  {%- endif -%}
  {%- set shown = {} -%}
  {%- for key, value in plan.items() if key != 'change_plan' -%}
    {%- do shown.update({key: value}) -%}
  {%- endfor -%}
  {{- return({'text': texts | join('; '), 'plan': spark_incremental._plan_json_safe(shown),
              'batches_upper_bound': upper_bound,
              'refresh_plan': spark_incremental._plan_json_safe(refresh_plan)}) -}}
{%- endmacro %}

{#- The rows a change plan may touch in a time-interval model: those of its done intervals
    (_interval_batches' done: not the ones this run redoes). The model holds only those:
    this run's batches write its missing and restated intervals from the source as it is
    then, and an interval not ready yet waits for its own batch. So a described load of a
    day still open reaches the model with that day's batch, whole, never as part of a day.
    none for a model without time intervals. Returns {predicate (over the model's columns),
    text (the words for the run's detail)}. -#}
{% macro _changes_within(plan, cfg) -%}
  {%- if not cfg.intervals or plan.get('work') is none -%}
    {{- return(none) -}}
  {%- endif -%}
  {%- set terms = [] -%}
  {%- set ranges = [] -%}
  {%- for pair in plan.work.done -%}
    {%- do terms.append('(' ~ spark_incremental._interval_in_range(cfg.intervals, pair[0], pair[1]) ~ ')') -%}
    {%- do ranges.append(spark_incremental._range_text(pair)) -%}
  {%- endfor -%}
  {{- return({
      'predicate': terms | join(' or ') if terms | length > 0 else '1 = 0',
      'text': 'in the done ' ~ cfg.intervals.unit ~ ' intervals ' ~ (ranges | join(', ') if ranges | length > 0 else '(none yet)'),
  }) -}}
{%- endmacro %}

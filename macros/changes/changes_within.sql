{#- The rows a change plan may touch. In a time-interval model: those of its done intervals
    (_interval_batches' done: not the ones this run redoes). The model holds only those:
    this run's batches write its missing and restated intervals from the source as it is
    then, and an interval not ready yet waits for its own batch. So a described load of a
    day still open reaches the model with that day's batch, whole, never as part of a day.
    A model with type_params min or max keeps its changes to that window: a row outside it
    is never loaded, as on a build. none for any other model. Returns {predicate (over the
    model's columns), text (the words for the run's detail)}. -#}
{% macro _changes_within(plan, cfg) -%}
  {%- if cfg.along and not cfg.intervals and (cfg.min_set or cfg.max_set) -%}
    {%- set window = {'lower': plan.window.lower if cfg.min_set else none, 'lower_op': '>=',
        'upper': plan.window.upper if cfg.max_set else none} -%}
    {%- set bounds = [] -%}
    {%- for word, value in [('min', window.lower), ('max', window.upper)] if value is not none -%}
      {%- do bounds.append(word ~ ' ' ~ value) -%}
    {%- endfor -%}
    {{- return({'predicate': spark_incremental._along_window_sql(cfg.along, window, cfg.along_type),
                'text': 'within ' ~ cfg.along ~ "'s " ~ bounds | join(' and ')}) -}}
  {%- endif -%}
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

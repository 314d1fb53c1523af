{#- dbt run / dbt build with --empty (or DBT_EMPTY), which renders every ref() and
    source() as zero rows, or with --sample (or DBT_SAMPLE), which keeps only the sample
    window's rows of every ref() and source() that has an event_time. The package would
    then record the run's window as processed (and a managed model its high-water mark,
    its done intervals, its described changes as applied) while it read none or part of
    it, and the rest would never be processed. So such an invocation that touches what
    the package keeps (_package_touches without the readers: a model that only reads a
    package table records nothing) is refused at on-run-start, before anything is written
    (dbt then stops the invocation: no model runs, no on-run-end); update_manifest
    records nothing either, should it run. Returns the message, or none when the run may
    go on. -#}
{% macro _limited_inputs_refusal(values) -%}
  {%- set flag = '--empty' if flags.EMPTY
      else ('--sample' if invocation_args_dict.get('sample') is not none else none) -%}
  {%- if flag is none -%}
    {{- return(none) -}}
  {%- endif -%}
  {%- set touches = spark_incremental._package_touches(values, readers=false, every=true) | sort -%}
  {%- if touches | length == 0 -%}
    {{- return(none) -}}
  {%- endif -%}
  {%- set shown = touches[:12] | join(', ') ~ (' and ' ~ (touches | length - 12) ~ ' more' if touches | length > 12 else '') -%}
  {{- return("spark_incremental: dbt's " ~ flag ~ " flag cannot run what the package keeps state for: " ~ shown
      ~ ". Under " ~ flag ~ " every ref() and source()"
      ~ (" reads zero rows" if flag == '--empty' else " with an event_time reads only the sample window")
      ~ ", and the package would record this run's events window as processed (a managed_incremental model"
      ~ " its high-water mark, done intervals and described changes too), so the events it did not read"
      ~ " would never be processed. Nothing was written. Leave them out of such a run, e.g. --exclude"
      ~ " package:spark_incremental tag:spark_incremental config.materialized:managed_incremental (and no"
      ~ " spark_incremental__changes, changes_file, restate, models_to_remove or force_unlock var); models"
      ~ " that only read their tables may stay selected.") -}}
{%- endmacro %}

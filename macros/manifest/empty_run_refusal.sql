{#- dbt run / dbt build --empty (or DBT_EMPTY): dbt renders every ref() and source() as
    zero rows. The package would then record the run's window as processed (and a
    managed model its high-water mark, its done intervals, its described changes as
    applied) while nothing was read, and those events would never be processed. So an
    --empty invocation that touches what the package keeps (_package_touches without the
    readers: a model that only reads a package table reads zero rows and records
    nothing) is refused at on-run-start, before anything is written (dbt then stops the
    invocation: no model runs, no on-run-end); update_manifest records nothing either,
    should it run. Returns the message, or none when the run may go on. -#}
{% macro _empty_run_refusal(values) -%}
  {%- if not flags.EMPTY -%}
    {{- return(none) -}}
  {%- endif -%}
  {%- set touches = spark_incremental._package_touches(values, readers=false, every=true) -%}
  {%- if touches | length == 0 -%}
    {{- return(none) -}}
  {%- endif -%}
  {%- set touches = touches | sort -%}
  {%- set shown = touches[:12] | join(', ') ~ (' and ' ~ (touches | length - 12) ~ ' more' if touches | length > 12 else '') -%}
  {{- return("spark_incremental: dbt's --empty flag cannot run what the package keeps state for: " ~ shown
      ~ ". Under --empty every ref() and source() reads zero rows, and the package would record this run's"
      ~ " events window as processed (a managed_incremental model its high-water mark, done intervals and"
      ~ " described changes too), so those events would never be processed. Nothing was written. Leave them"
      ~ " out of an --empty run, e.g. --exclude package:spark_incremental tag:spark_incremental"
      ~ " config.materialized:managed_incremental (and no spark_incremental__changes, changes_file, restate,"
      ~ " models_to_remove or force_unlock var); models that only read their tables may stay selected.") -}}
{%- endmacro %}

{#- on-run-start, for dbt run and dbt build: plan the described changes (bad change input
    stops here, before anything is written), take the run lock, then apply
    spark_incremental__models_to_remove. Use as:
    on-run-start: "{{ spark_incremental.start_run() }}" -#}
{% macro start_run() -%}
  {{- return(adapter.dispatch('start_run', 'spark_incremental')()) -}}
{%- endmacro %}


{% macro default__start_run() -%}
  {%- if not execute or flags.WHICH not in ['run', 'build'] -%}
    {{- return('') -}}
  {%- endif -%}
  {%- do spark_incremental.plan_changes() -%}
  {#- appends overwrite their own partition in dynamic mode: make sure the log says so -#}
  {%- do spark_incremental._ensure_dynamic_overwrite(spark_incremental.ensure_manifest_log()) -%}
  {%- do spark_incremental._acquire_run_lock() -%}
  {%- do spark_incremental.remove_models() -%}
  {{- return('') -}}
{%- endmacro %}

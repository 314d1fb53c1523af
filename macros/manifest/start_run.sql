{#- on-run-start: take the run lock (dbt run / dbt build only), then apply
    spark_incremental__models_to_remove. Use as:
    on-run-start: "{{ spark_incremental.start_run() }}" -#}
{% macro start_run() -%}
  {{- return(adapter.dispatch('start_run', 'spark_incremental')()) -}}
{%- endmacro %}


{% macro default__start_run() -%}
  {%- if not execute or flags.WHICH not in ['run', 'build'] -%}
    {{- return('') -}}
  {%- endif -%}
  {%- do spark_incremental._acquire_run_lock() -%}
  {%- do spark_incremental.remove_models() -%}
  {{- return('') -}}
{%- endmacro %}

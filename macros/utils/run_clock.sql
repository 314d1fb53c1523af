{#- When this invocation started, on the package's clock (naive UTC): the pinned
    spark_incremental__now when it is set (tests, replays), else dbt's run_started_at,
    which is earlier than anything the run read. -#}
{% macro _run_clock() -%}
  {%- if spark_incremental.get_config_var('now') -%}
    {{- return(spark_incremental.now()) -}}
  {%- endif -%}
  {{- return(run_started_at.replace(tzinfo=none, microsecond=0)) -}}
{%- endmacro %}

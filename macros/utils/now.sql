{#- Current time in UTC as a naive datetime. The var spark_incremental__now pins it, or,
    when the var is not set, the environment variable SPARK_INCREMENTAL_NOW (tests,
    replays; read at execution time only, like every var the spec marks `env`: a value
    that changes between runs keeps dbt's partial parsing). Otherwise it is the machine's
    real UTC time, never Spark's session time zone. -#}
{% macro now() -%}
  {%- set pinned = spark_incremental.get_config_var('now') -%}
  {%- if pinned -%}
    {{- return(spark_incremental._parse_ts(pinned, 'spark_incremental__now')) -}}
  {%- endif -%}
  {{- return(modules.datetime.datetime.utcnow().replace(microsecond=0)) -}}
{%- endmacro %}

{#- Current time in UTC as a naive datetime. The var spark_incremental__now pins it; when
    the var is not set, the environment variable SPARK_INCREMENTAL_NOW does (tests,
    replays). It is read only at execution time, never while dbt parses: a value that
    changes between runs then keeps dbt's partial parsing (a changed --vars forces a full
    re-parse). Otherwise it is the machine's real UTC time, never Spark's session time
    zone. -#}
{% macro now() -%}
  {%- set pinned = spark_incremental.get_config_var('now') -%}
  {%- if pinned -%}
    {{- return(spark_incremental._parse_ts(pinned, 'spark_incremental__now')) -}}
  {%- endif -%}
  {%- set from_env = env_var('SPARK_INCREMENTAL_NOW', '') if execute else '' -%}
  {%- if from_env | trim -%}
    {{- return(spark_incremental._parse_ts(from_env, 'SPARK_INCREMENTAL_NOW')) -}}
  {%- endif -%}
  {{- return(modules.datetime.datetime.utcnow().replace(microsecond=0)) -}}
{%- endmacro %}

{#- Current time in UTC as a naive datetime. The var spark_incremental__now pins it
    (tests, replays); otherwise it is the machine's real UTC time, never Spark's
    session time zone. -#}
{% macro now() -%}
  {%- set pinned = spark_incremental.get_config_var('now') -%}
  {%- if pinned -%}
    {{- return(spark_incremental._parse_ts(pinned, 'spark_incremental__now')) -}}
  {%- endif -%}
  {{- return(modules.datetime.datetime.utcnow().replace(microsecond=0)) -}}
{%- endmacro %}

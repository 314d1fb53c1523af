{#- The filter every scan of the events table uses: the session timestamp within
    [lower, upper], plus the partition column when one is named (a date, a 'yyyy-MM-dd'
    string or an int yyyymmdd, compared with literals), so Spark prunes. Either limit may
    be none (no bound); lower_exclusive makes the lower bound strict. -#}
{% macro events_window_filter(lower_limit, upper_limit, alias=none, lower_exclusive=false) -%}
  {%- set prefix = alias ~ '.' if alias else '' -%}
  {%- set session_timestamp = prefix ~ adapter.quote(spark_incremental.get_config_var('session_timestamp')) -%}
  {%- set conditions = [] -%}
  {%- if lower_limit is not none -%}
    {%- do conditions.append(session_timestamp ~ (' > ' if lower_exclusive else ' >= ')
        ~ spark_incremental._ts_literal(lower_limit)) -%}
  {%- endif -%}
  {%- if upper_limit is not none -%}
    {%- do conditions.append(session_timestamp ~ ' <= ' ~ spark_incremental._ts_literal(upper_limit)) -%}
  {%- endif -%}
  {%- do conditions.extend(spark_incremental._events_partition_filter(lower_limit, upper_limit, alias)) -%}
  {{- conditions | join('\n        and ') if conditions else 'true' -}}
{%- endmacro %}

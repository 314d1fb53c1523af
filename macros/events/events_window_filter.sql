{#- The filter every scan of the events table uses: the session timestamp within
    [lower, upper], plus the partition column when one is named (a date, a 'yyyy-MM-dd'
    string or an int yyyymmdd, compared with literals), so Spark prunes. Either limit may
    be none (no bound); lower_exclusive makes the lower bound strict. -#}
{% macro events_window_filter(lower_limit, upper_limit, alias=none, lower_exclusive=false) -%}
  {%- set prefix = alias ~ '.' if alias else '' -%}
  {%- set session_timestamp = prefix ~ adapter.quote(spark_incremental.get_config_var('session_timestamp')) -%}
  {%- set partition_column = spark_incremental.get_config_var('events_partition_column') -%}
  {%- set partition_format = spark_incremental._events_partition_format() -%}
  {%- set conditions = [] -%}
  {%- if lower_limit is not none -%}
    {%- do conditions.append(session_timestamp ~ (' > ' if lower_exclusive else ' >= ')
        ~ spark_incremental._ts_literal(lower_limit)) -%}
  {%- endif -%}
  {%- if upper_limit is not none -%}
    {%- do conditions.append(session_timestamp ~ ' <= ' ~ spark_incremental._ts_literal(upper_limit)) -%}
  {%- endif -%}
  {%- if partition_column -%}
    {%- set partition = prefix ~ adapter.quote(partition_column) -%}
    {%- if lower_limit is not none -%}
      {%- do conditions.append(partition ~ ' >= ' ~ spark_incremental._events_partition_literal(lower_limit, partition_format)) -%}
    {%- endif -%}
    {%- if upper_limit is not none -%}
      {%- do conditions.append(partition ~ ' <= ' ~ spark_incremental._events_partition_literal(upper_limit, partition_format)) -%}
    {%- endif -%}
  {%- endif -%}
  {{- conditions | join('\n        and ') if conditions else 'true' -}}
{%- endmacro %}

{#- The filter every scan of the events table uses: the session timestamp within
    [lower, upper], plus the date partition column when one is named, so Spark prunes. -#}
{% macro events_window_filter(lower_limit, upper_limit, alias=none) -%}
  {%- set prefix = alias ~ '.' if alias else '' -%}
  {%- set session_timestamp = spark_incremental.get_config_var('session_timestamp') -%}
  {%- set partition_column = spark_incremental.get_config_var('events_partition_column') -%}
  {{ prefix }}{{ session_timestamp }} >= {{ spark_incremental._ts_literal(lower_limit) }}
        and {{ prefix }}{{ session_timestamp }} <= {{ spark_incremental._ts_literal(upper_limit) }}
  {%- if partition_column %}
        and {{ prefix }}{{ partition_column }} >= to_date({{ spark_incremental._ts_literal(lower_limit) }})
        and {{ prefix }}{{ partition_column }} <= to_date({{ spark_incremental._ts_literal(upper_limit) }})
  {%- endif -%}
{%- endmacro %}

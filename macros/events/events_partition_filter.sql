{#- The partition conditions of a scan of the events table between lower and upper (either
    may be none): the partition column compared with the literal UTC dates of the bounds
    (_events_partition_literal), so Spark prunes. A list of SQL conditions; empty without
    a partition column. events_window_filter adds them to every scan; the plan preview
    (spark_incremental.plan) lists the files they select. -#}
{% macro _events_partition_filter(lower_limit, upper_limit, alias=none) -%}
  {%- set partition_column = spark_incremental.get_config_var('events_partition_column') -%}
  {%- set conditions = [] -%}
  {%- if not partition_column -%}
    {{- return(conditions) -}}
  {%- endif -%}
  {%- set partition_format = spark_incremental._events_partition_format() -%}
  {%- set partition = (alias ~ '.' if alias else '') ~ adapter.quote(partition_column) -%}
  {%- if lower_limit is not none -%}
    {%- do conditions.append(partition ~ ' >= ' ~ spark_incremental._events_partition_literal(lower_limit, partition_format)) -%}
  {%- endif -%}
  {%- if upper_limit is not none -%}
    {%- do conditions.append(partition ~ ' <= ' ~ spark_incremental._events_partition_literal(upper_limit, partition_format)) -%}
  {%- endif -%}
  {{- return(conditions) -}}
{%- endmacro %}

{#- The UTC date of `tstamp` as a literal of the events partition column's format:
    date'yyyy-MM-dd', 'yyyy-MM-dd' or yyyymmdd. A literal, so Spark prunes partitions. -#}
{% macro _events_partition_literal(tstamp, partition_format) -%}
  {%- if partition_format == 'int' -%}
    {{- return(tstamp.strftime('%Y%m%d')) -}}
  {%- elif partition_format == 'string' -%}
    {{- return(spark_incremental._quote(tstamp.strftime('%Y-%m-%d'))) -}}
  {%- endif -%}
  {{- return("date'" ~ tstamp.strftime('%Y-%m-%d') ~ "'") -}}
{%- endmacro %}

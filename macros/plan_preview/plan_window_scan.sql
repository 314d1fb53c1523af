{#- The scan of the events table between two bounds: the files of the partitions the
    window's partition filter selects (_events_partition_filter, the literal bounds of
    every window scan), and as estimated rows the rows of each partition times the share
    of its day (the UTC date of the session timestamp) inside [lower, upper]: Spark skips
    the row groups whose session timestamps all lie outside by their Parquet statistics,
    and a day's events are spread over it. Without a partition column: the whole table. -#}
{% macro _plan_window_scan(events, lower_limit, upper_limit) -%}
  {%- set scan = {} -%}
  {%- do scan.update(spark_incremental._plan_scan(events,
      spark_incremental._events_partition_filter(lower_limit, upper_limit))) -%}
  {%- if scan.by_partition | length == 0 -%}
    {{- return(scan) -}}
  {%- endif -%}
  {%- set partition_format = spark_incremental._events_partition_format() -%}
  {%- set day = modules.datetime.timedelta(days=1) -%}
  {%- set state = namespace(rows=0.0) -%}
  {%- for part in scan.by_partition.values() -%}
    {%- set text = part['values'][0] | string -%}
    {%- set start = modules.datetime.datetime.strptime(text[:8] if partition_format == 'int' else text[:10],
        '%Y%m%d' if partition_format == 'int' else '%Y-%m-%d') -%}
    {%- set inside = ([upper_limit, start + day] | min) - ([lower_limit, start] | max) -%}
    {%- set state.rows = state.rows + part.rows * ([inside.total_seconds(), 0] | max) / day.total_seconds() -%}
  {%- endfor -%}
  {%- do scan.update({'estimated_rows': state.rows | round | int}) -%}
  {{- return(scan) -}}
{%- endmacro %}

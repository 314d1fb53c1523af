{#- The session timestamp of the first event after tstamp (to the second, rounded down),
    or none: where a gap in the data ends (get_run_limits, when a window holds no new
    event but newer events exist). Never a scan of the table past tstamp:
    - with a partition column that is a partition of the table: the partition values
      from the metastore (show partitions, no file listed), then min() over tstamp's
      day and the first partition after it (at most two partitions, pruned);
    - without one, every scan of the table lists all its files anyway: min() over the
      events after tstamp, whose Parquet statistics skip the row groups before it. -#}
{% macro _first_event_after(tstamp) -%}
  {%- set events = spark_incremental.events_relation() -%}
  {%- set session_timestamp = adapter.quote(spark_incremental.get_config_var('session_timestamp')) -%}
  {%- set conditions = [spark_incremental.events_window_filter(tstamp, none, lower_exclusive=true)] -%}
  {%- set next_partition = spark_incremental._events_partition_after(events, tstamp) -%}
  {%- if next_partition is not none -%}
    {%- do conditions.append(adapter.quote(spark_incremental.get_config_var('events_partition_column'))
        ~ ' <= ' ~ next_partition) -%}
  {%- endif -%}
  {%- set sql -%}
    select date_format(min({{ session_timestamp }}), 'yyyy-MM-dd HH:mm:ss')
    from {{ events }}
    where
        {{ conditions | join('\n        and ') }}
  {%- endset -%}
  {{- return(spark_incremental._parse_ts(spark_incremental._fetch_value(sql))) -}}
{%- endmacro %}


{#- The first partition of the events table after tstamp's UTC date, as a literal of the
    partition column's format, from the metastore's partition list (no file listed).
    none without a partition column that is a partition of the table, or when no
    partition lies after that date (the first event is then on tstamp's date). -#}
{% macro _events_partition_after(events, tstamp) -%}
  {%- set partition_column = spark_incremental.get_config_var('events_partition_column') -%}
  {%- if not partition_column or partition_column | lower not in spark_incremental._partition_columns(events) -%}
    {{- return(none) -}}
  {%- endif -%}
  {%- set partition_format = spark_incremental._events_partition_format() -%}
  {%- set day = tstamp.strftime('%Y%m%d' if partition_format == 'int' else '%Y-%m-%d') -%}
  {%- set later = [] -%}
  {%- for row in spark_incremental._fetch_rows('show partitions ' ~ events) -%}
    {%- for part in (row[0] | string).split('/') if part.split('=', 1)[0] | lower == partition_column | lower -%}
      {%- set value = part.split('=', 1)[1] -%}
      {%- if value != '__HIVE_DEFAULT_PARTITION__' and value[:day | length] > day -%}
        {%- do later.append(value[:day | length]) -%}
      {%- endif -%}
    {%- endfor -%}
  {%- endfor -%}
  {%- if later | length == 0 -%}
    {{- return(none) -}}
  {%- endif -%}
  {{- return(spark_incremental._events_partition_literal(modules.datetime.datetime.strptime(
      later | min, '%Y%m%d' if partition_format == 'int' else '%Y-%m-%d'), partition_format)) -}}
{%- endmacro %}

{#- The earliest start and the latest end of the sessions in a relation with
    start_tstamp / end_tstamp columns, as datetimes ({'start_tstamp', 'end_tstamp'};
    both none when it holds no session). Read before the events scan so that the scan's
    bounds are literals and Spark can prune partitions.
    with_window_newest: the same query also reads the run window's newest session and
    load timestamps, kept for the end hook (_window_newest): one statement fewer a run. -#}
{% macro _session_range(sessions_relation, with_window_newest=false) -%}
  {%- set empty = {'start_tstamp': none, 'end_tstamp': none} -%}
  {%- if not spark_incremental._can_query() or spark_incremental._missing_at_compile(sessions_relation) -%}
    {{- return(empty) -}}
  {%- endif -%}
  {%- set sql -%}
    select
        date_format(min(start_tstamp), 'yyyy-MM-dd HH:mm:ss') as start_tstamp,
        date_format(max(end_tstamp), 'yyyy-MM-dd HH:mm:ss') as end_tstamp
        {%- if with_window_newest %}
        {%- for column in spark_incremental._window_newest_columns() %},
        {{ column }}
        {%- endfor %}
        {%- endif %}
    from {{ sessions_relation }}
  {%- endset -%}
  {%- set rows = spark_incremental._fetch_rows(sql) -%}
  {%- if with_window_newest -%}
    {%- do spark_incremental._window_newest([rows[0][2], rows[0][3]]) -%}
  {%- endif -%}
  {%- if rows | length == 0 or rows[0][0] is none -%}
    {{- return(empty) -}}
  {%- endif -%}
  {{- return({
      'start_tstamp': spark_incremental._parse_ts(rows[0][0]),
      'end_tstamp': spark_incremental._parse_ts(rows[0][1]),
  }) -}}
{%- endmacro %}

{#- The query behind _events_exist_after: one row (1) when the events table holds an event
    with a session timestamp after tstamp (at or before until when given; matching
    condition when given), none otherwise. A limit-1 query with the window filter (pruned
    on the partition column when set), so Parquet statistics let Spark skip every file
    when there is none. A statement of its own, or a scalar subquery of another one
    (_nothing_new_rule asks it beside its own probe: one round trip). -#}
{% macro _events_exist_sql(tstamp, until=none, condition=none) -%}
  {%- set sql -%}
    select 1 from {{ spark_incremental.events_relation() }}
    where
        {{ spark_incremental.events_window_filter(tstamp, until, lower_exclusive=true) }}
        {%- if condition is not none %}
        and {{ condition }}
        {%- endif %}
    limit 1
  {%- endset -%}
  {{- return(sql) -}}
{%- endmacro %}

{#- Is there an event with a session timestamp after tstamp (and, when until is given, at
    or before until; and, when condition is given, matching that SQL predicate)? One row at
    most, with the window filter (pruned on the partition column when set); Parquet
    statistics let Spark skip every file when there is none. Used by get_run_limits
    (anything new since last_success? anything loaded late into the lookback window?) and
    update_manifest (events past the window: a gap to cross?). -#}
{% macro _events_exist_after(tstamp, until=none, condition=none) -%}
  {%- set sql -%}
    select 1 from {{ spark_incremental.events_relation() }}
    where
        {{ spark_incremental.events_window_filter(tstamp, until, lower_exclusive=true) }}
        {%- if condition is not none %}
        and {{ condition }}
        {%- endif %}
    limit 1
  {%- endset -%}
  {{- return(spark_incremental._fetch_value(sql) is not none) -}}
{%- endmacro %}

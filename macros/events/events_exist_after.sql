{#- Is there an event with a session timestamp after tstamp (and, when until is given, at
    or before until, and matching condition, a SQL predicate, when given)? One row at most, pruned on the partition column when set; Parquet
    statistics let Spark skip every file when there is none. Used by get_run_limits
    (anything new since last_success?) and update_manifest (events past the window: a
    gap to cross?). -#}
{% macro _events_exist_after(tstamp, until=none, condition=none) -%}
  {%- set session_timestamp = spark_incremental.get_config_var('session_timestamp') -%}
  {%- set partition_column = spark_incremental.get_config_var('events_partition_column') -%}
  {%- set sql -%}
    select 1 from {{ spark_incremental.events_relation() }}
    where
        {{ session_timestamp }} > {{ spark_incremental._ts_literal(tstamp) }}
        {%- if partition_column %}
        and {{ partition_column }} >= to_date({{ spark_incremental._ts_literal(tstamp) }})
        {%- endif %}
        {%- if until is not none %}
        and {{ session_timestamp }} <= {{ spark_incremental._ts_literal(until) }}
        {%- if partition_column %}
        and {{ partition_column }} <= to_date({{ spark_incremental._ts_literal(until) }})
        {%- endif %}
        {%- endif %}
        {%- if condition is not none %}
        and {{ condition }}
        {%- endif %}
    limit 1
  {%- endset -%}
  {{- return(spark_incremental._fetch_value(sql) is not none) -}}
{%- endmacro %}

{#- The model's rows for [start, end): the model SQL with the bounds bound
    (_interval_bind), its output kept to time_column >= start and < end, so no row
    outside the range leaks into the target. column_list: the columns to select. -#}
{% macro _interval_batch_sql(sql, settings, column_list, start, end) -%}
  {%- set batch_sql -%}
      select
          {{ column_list }}
      from (
          {{ spark_incremental._interval_bind(sql, start, end) }}
      ) as si_batch
      where {{ spark_incremental._interval_in_range(settings, start, end) }}
  {%- endset -%}
  {{- return(batch_sql) -}}
{%- endmacro %}


{#- time_column in [start, end), as a predicate. -#}
{% macro _interval_in_range(settings, start, end) -%}
  {{- return(settings.time_column ~ ' >= ' ~ spark_incremental._ts_literal(start)
      ~ ' and ' ~ settings.time_column ~ ' < ' ~ spark_incremental._ts_literal(end)) -}}
{%- endmacro %}

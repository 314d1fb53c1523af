{#- The bounds of the batch being built, for model SQL. Outside a batch (dbt compile, docs)
    they render the widest range; the materialization binds each batch's bounds before it
    runs the query. start_ts: first instant (inclusive), end_ts: end of the batch
    (exclusive), start_ds / end_ds: first and last day of the batch (both inclusive), as
    'YYYY-MM-DD' string literals. Use them without quotes:
      where ts >= {{ spark_incremental.start_ts() }} and ts < {{ spark_incremental.end_ts() }}
      where ds between {{ spark_incremental.start_ds() }} and {{ spark_incremental.end_ds() }} -#}
{% macro start_ts() -%}
  {{- return(adapter.dispatch('start_ts', 'spark_incremental')()) -}}
{%- endmacro %}

{% macro default__start_ts() -%}
  {{- return("timestamp'1000-01-01 00:00:00'/*spark_incremental:start_ts*/") -}}
{%- endmacro %}


{% macro end_ts() -%}
  {{- return(adapter.dispatch('end_ts', 'spark_incremental')()) -}}
{%- endmacro %}

{% macro default__end_ts() -%}
  {{- return("timestamp'9999-12-31 00:00:00'/*spark_incremental:end_ts*/") -}}
{%- endmacro %}


{% macro start_ds() -%}
  {{- return(adapter.dispatch('start_ds', 'spark_incremental')()) -}}
{%- endmacro %}

{% macro default__start_ds() -%}
  {{- return("'1000-01-01'/*spark_incremental:start_ds*/") -}}
{%- endmacro %}


{% macro end_ds() -%}
  {{- return(adapter.dispatch('end_ds', 'spark_incremental')()) -}}
{%- endmacro %}

{% macro default__end_ds() -%}
  {{- return("'9999-12-31'/*spark_incremental:end_ds*/") -}}
{%- endmacro %}


{#- The model SQL with a batch's bounds in place of the markers start_ts() ... render. -#}
{% macro _interval_bind(sql, start, end) -%}
  {%- set last_day = end - modules.datetime.timedelta(microseconds=1) -%}
  {%- set values = {
      'start_ts': "timestamp'" ~ spark_incremental._ts_text(start) ~ "'",
      'end_ts': "timestamp'" ~ spark_incremental._ts_text(end) ~ "'",
      'start_ds': "'" ~ start.strftime('%Y-%m-%d') ~ "'",
      'end_ds': "'" ~ last_day.strftime('%Y-%m-%d') ~ "'",
  } -%}
  {%- set state = namespace(sql=sql) -%}
  {%- for name, value in values.items() -%}
    {%- set state.sql = modules.re.sub("(timestamp)?'[^']*'/\\*spark_incremental:" ~ name ~ "\\*/",
                                       value ~ '/*spark_incremental:' ~ name ~ '*/', state.sql) -%}
  {%- endfor -%}
  {{- return(state.sql) -}}
{%- endmacro %}

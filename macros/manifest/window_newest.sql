{#- The newest session timestamp and the newest load timestamp (as text, or none) among
    the events of the run's window (spark_incremental_base_events_in_window), which the
    end hook records as the models' progress and the load watermark. Asked once per run:
    in the query that reads the sessions' time range (_session_range, called by
    spark_incremental_base_events_this_run, which runs after the window is built and
    before the end hook, in every run with new events), or by the end hook itself when
    that query did not run in this invocation.
    found: the two values that query read, [newest session, newest load], to keep for
    the end hook; none to get them (kept, or asked now). Returns
    {'newest_session': text or none, 'newest_load': text or none}. -#}
{% macro _window_newest(found=none) -%}
  {%- set kept = spark_incremental._run_cache('window_newest') -%}
  {%- if found is not none -%}
    {%- do kept.update({'newest_session': found[0], 'newest_load': found[1]}) -%}
  {%- elif 'newest_session' not in kept -%}
    {%- set sql -%}
    select
        {{ spark_incremental._window_newest_columns() | join(',\n        ') }}
    {%- endset -%}
    {%- set row = spark_incremental._fetch_rows(sql)[0] -%}
    {%- do kept.update({'newest_session': row[0], 'newest_load': row[1]}) -%}
  {%- endif -%}
  {{- return({'newest_session': kept.newest_session, 'newest_load': kept.newest_load}) -}}
{%- endmacro %}


{#- The two select-list expressions _window_newest reads, in its order: scalar subqueries
    over the window table, so any query can carry them. -#}
{% macro _window_newest_columns() -%}
  {%- set window = spark_incremental._relation_for_model('spark_incremental_base_events_in_window') -%}
  {%- set session_timestamp = spark_incremental.get_config_var('session_timestamp') -%}
  {%- set newest_load_sql = spark_incremental._newest_load_sql() -%}
  {{- return([
      "(select date_format(max(" ~ session_timestamp ~ "), 'yyyy-MM-dd HH:mm:ss') from " ~ window ~ ") as newest_session",
      (newest_load_sql if newest_load_sql else 'cast(null as string)') ~ ' as newest_load',
  ]) -}}
{%- endmacro %}

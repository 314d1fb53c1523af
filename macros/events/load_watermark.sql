{#- The load timestamp column and the load watermark, which _nothing_new_rule compares
    with each other to tell late loads into the lookback window from events already
    processed. -#}

{#- The events table's load timestamp column, or none. The default (load_tstamp) is used
    when the table has it; a name set explicitly must exist; null or '' turns it off. -#}
{% macro _load_timestamp_column(event_columns) -%}
  {%- set name = spark_incremental.get_config_var('load_timestamp') -%}
  {%- if name is none or name | string | trim == '' -%}
    {{- return(none) -}}
  {%- endif -%}
  {%- if name | lower in event_columns -%}
    {{- return(name) -}}
  {%- endif -%}
  {%- if name == spark_incremental._config_var_entry('load_timestamp').default -%}
    {{- return(none) -}}
  {%- endif -%}
  {%- do exceptions.raise_compiler_error(
      "spark_incremental: spark_incremental__load_timestamp = '" ~ name ~ "' is not a column of "
      ~ spark_incremental.events_relation() ~ ". Its columns: " ~ event_columns | join(', ')
      ~ ". Set it to the column the loader stamps, or to null if there is none.") -%}
{%- endmacro %}


{#- The load watermark: a row of its own in the manifest log (model
    __spark_incremental_load_watermark__, record_type 'load', last_success = the newest
    load timestamp processed). It never moves backwards: the max is read, once per
    invocation (only update_manifest moves it, at the very end of a run, after reading
    it). -#}
{% macro _load_watermark_name() -%}
  {{- return('__spark_incremental_load_watermark__') -}}
{%- endmacro %}


{#- The watermark as an aggregate over rows of the log (a timestamp, null when there is
    none), for _load_watermark and for the run's one read of the state
    (_manifest_current_sql with log_facts). -#}
{% macro _load_watermark_aggregate() -%}
  {{- return("max(case when model = " ~ spark_incremental._quote(spark_incremental._load_watermark_name())
      ~ " and record_type = 'load' then last_success end)") -}}
{%- endmacro %}


{% macro _load_watermark() -%}
  {%- set relation = spark_incremental.manifest_log_relation() -%}
  {%- set cache = spark_incremental._run_cache('load_watermark') -%}
  {%- if 'value' in cache -%}
    {{- return(cache.value) -}}
  {%- endif -%}
  {%- if not spark_incremental._relation_exists(relation) -%}
    {{- return(none) -}}
  {%- endif -%}
  {%- set sql -%}
    select date_format({{ spark_incremental._load_watermark_aggregate() }}, 'yyyy-MM-dd HH:mm:ss.SSSSSS')
    from {{ relation }}
  {%- endset -%}
  {%- set value = spark_incremental._parse_ts(spark_incremental._fetch_value(sql)) -%}
  {%- do cache.update({'value': value}) -%}
  {{- return(value) -}}
{%- endmacro %}


{#- The newest load timestamp among the events this run read, as a select expression
    (text, 'yyyy-MM-dd HH:mm:ss.SSSSSS'): a scalar subquery over
    spark_incremental_base_events_in_window, or none when the events table has no load
    timestamp column. update_manifest asks it in the same statement as the newest session
    timestamp (one query). The window holds every column of the events table (select *),
    built in this invocation (update_manifest asks only when the whole base chain ran):
    its columns are the events table's, known already (_event_columns). -#}
{% macro _newest_load_sql() -%}
  {%- set window = spark_incremental._relation_for_model('spark_incremental_base_events_in_window') -%}
  {%- set columns = spark_incremental._event_columns(spark_incremental.events_relation()).columns | map('lower') | list -%}
  {%- set load_column = spark_incremental._load_timestamp_column(columns) -%}
  {%- if load_column is none -%}
    {{- return(none) -}}
  {%- endif -%}
  {{- return("(select date_format(max(" ~ load_column ~ "), 'yyyy-MM-dd HH:mm:ss.SSSSSS') from " ~ window ~ ")") -}}
{%- endmacro %}


{#- The 'load' row to append after a run that processed its window, or none: the newest
    load timestamp the run read (newest_text, from _newest_load_sql, or none), held back
    to the run's start (_run_clock: before it read anything) minus
    spark_incremental__load_commit_lag_seconds when that is earlier (a load stamped since
    may still be committing: the next run reads the window again until the lag has
    passed), and only when it is newer than the current watermark (it never moves
    backwards). -#}
{% macro _load_watermark_row(newest_text) -%}
  {%- set newest = spark_incremental._parse_ts(newest_text) -%}
  {%- if newest is none -%}
    {{- return(none) -}}
  {%- endif -%}
  {%- set lag = spark_incremental.get_config_var('load_commit_lag_seconds') -%}
  {%- set settled = spark_incremental._run_clock() - modules.datetime.timedelta(seconds=lag) -%}
  {%- set held = lag > 0 and settled < newest -%}
  {%- set mark = settled if held else newest -%}
  {%- set current = spark_incremental._load_watermark() -%}
  {%- if current is not none and mark <= current -%}
    {{- return(none) -}}
  {%- endif -%}
  {%- set action = ('held back ' ~ lag ~ " s (load_commit_lag_seconds) from the newest load read, '"
      ~ newest.strftime('%Y-%m-%d %H:%M:%S.%f') ~ "': a load stamped since may still be committing, so the next"
      ~ ' run reads the lookback window again') if held else 'load watermark' -%}
  {{- return({'model': spark_incremental._load_watermark_name(), 'record_type': 'load',
              'last_success': mark.strftime('%Y-%m-%d %H:%M:%S.%f'), 'action': action}) -}}
{%- endmacro %}

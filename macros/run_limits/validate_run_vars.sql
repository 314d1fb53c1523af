{#- Check the run-limit vars before any SQL runs; returns them parsed. -#}
{% macro _validate_run_vars() -%}
  {%- set start_date = spark_incremental._parse_ts(
      spark_incremental.get_config_var('start_date') | string, 'spark_incremental__start_date') -%}
  {%- set backfill = spark_incremental.get_config_var('backfill_limit_days') -%}
  {%- if backfill is not number or backfill is sameas true or backfill is sameas false or backfill <= 0 -%}
    {%- do exceptions.raise_compiler_error(
        "spark_incremental: spark_incremental__backfill_limit_days = " ~ backfill
        ~ " is not allowed: it must be a positive number of days (default 30).") -%}
  {%- endif -%}
  {%- set lookback = spark_incremental.get_config_var('lookback_window_hours') -%}
  {%- if lookback is not number or lookback is sameas true or lookback is sameas false or lookback < 0 -%}
    {%- do exceptions.raise_compiler_error(
        "spark_incremental: spark_incremental__lookback_window_hours = " ~ lookback
        ~ " is not allowed: it must be a number of hours >= 0 (default 6).") -%}
  {%- endif -%}
  {%- set session_timestamp = spark_incremental.get_config_var('session_timestamp') -%}
  {%- if session_timestamp is not string or not modules.re.match('^[A-Za-z_][A-Za-z0-9_]*$', session_timestamp) -%}
    {%- do exceptions.raise_compiler_error(
        "spark_incremental: spark_incremental__session_timestamp = '" ~ session_timestamp
        ~ "' is not a column name (e.g. collector_tstamp, load_tstamp).") -%}
  {%- endif -%}
  {{- return({
      'start_date': start_date,
      'backfill_limit_days': backfill,
      'lookback_window_hours': lookback,
      'session_timestamp': session_timestamp,
  }) -}}
{%- endmacro %}

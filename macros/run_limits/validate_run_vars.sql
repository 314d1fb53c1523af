{#- The run-limit vars, checked (validate_config_vars) and parsed. -#}
{% macro _validate_run_vars() -%}
  {%- set values = spark_incremental.validate_config_vars() -%}
  {{- return({
      'start_date': spark_incremental._parse_ts(values.start_date, 'spark_incremental__start_date'),
      'backfill_limit_days': values.backfill_limit_days,
      'lookback_window_hours': values.lookback_window_hours,
      'session_timestamp': values.session_timestamp,
  }) -}}
{%- endmacro %}

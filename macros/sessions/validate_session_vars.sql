{#- The sessionisation vars, checked (validate_config_vars) and returned as a dict:
    {'event_identifier', 'session_identifier', 'user_identifier', 'session_timestamp',
     'device_created_timestamp', 'device_sent_timestamp', 'app_id_column',
     'max_session_days', 'days_late_allowed', 'session_lookback_days',
     'allow_null_dvce_tstamps', 'app_ids', 'event_columns', 'partition_format'}.
    With an events relation, also checks that every column the package reads exists
    (_event_columns) and returns the table's columns. -#}
{% macro validate_session_vars(events=none) -%}
  {{- return(adapter.dispatch('validate_session_vars', 'spark_incremental')(events)) -}}
{%- endmacro %}


{% macro default__validate_session_vars(events=none) -%}
  {%- set values = spark_incremental.validate_config_vars() -%}
  {%- set session_vars = {} -%}
  {%- for name in ['event_identifier', 'session_identifier', 'user_identifier', 'session_timestamp',
                   'device_created_timestamp', 'device_sent_timestamp', 'app_id_column',
                   'max_session_days', 'days_late_allowed', 'session_lookback_days',
                   'allow_null_dvce_tstamps', 'app_ids'] -%}
    {%- do session_vars.update({name: values[name]}) -%}
  {%- endfor -%}
  {#- offline (lint) compiles, and compiles before the events table exists, get a
      placeholder column list -#}
  {%- set found = {'columns': [values.event_identifier], 'partition_format': values.events_partition_format} -%}
  {%- if events is not none -%}
    {%- set found = spark_incremental._event_columns(events) -%}
  {%- endif -%}
  {%- do session_vars.update({'event_columns': found.columns, 'partition_format': found.partition_format}) -%}
  {{- return(session_vars) -}}
{%- endmacro %}

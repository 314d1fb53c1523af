{#- Check the sessionisation vars and return them parsed:
    {'session_identifier', 'user_identifier', 'max_session_days', 'days_late_allowed',
     'session_lookback_days', 'allow_null_dvce_tstamps', 'app_ids', 'event_columns'}.
    With an events relation, also checks that the identifier columns (and the device
    timestamps the late-sent filter reads) exist, and returns the table's columns. -#}
{% macro validate_session_vars(events=none) -%}
  {{- return(adapter.dispatch('validate_session_vars', 'spark_incremental')(events)) -}}
{%- endmacro %}


{% macro default__validate_session_vars(events=none) -%}
  {%- set session_identifier = spark_incremental._session_column_var('session_identifier') -%}
  {%- set user_identifier = spark_incremental._session_column_var('user_identifier') -%}
  {%- set max_session_days = spark_incremental._session_days_var('max_session_days', 1, 3) -%}
  {%- set days_late_allowed = spark_incremental._session_days_var('days_late_allowed', 0, 3) -%}
  {%- set session_lookback_days = spark_incremental._session_days_var('session_lookback_days', 1, 730) -%}
  {%- if session_lookback_days < max_session_days -%}
    {%- do exceptions.raise_compiler_error(
        "spark_incremental: spark_incremental__session_lookback_days = " ~ session_lookback_days
        ~ " is not allowed: it must be at least spark_incremental__max_session_days ("
        ~ max_session_days ~ "), or sessions still open would be forgotten (default 730).") -%}
  {%- endif -%}
  {%- set allow_null = spark_incremental.get_config_var('allow_null_dvce_tstamps') -%}
  {%- if allow_null is not sameas true and allow_null is not sameas false -%}
    {%- do exceptions.raise_compiler_error(
        "spark_incremental: spark_incremental__allow_null_dvce_tstamps = " ~ allow_null
        ~ " is not allowed: it must be true or false (default false).") -%}
  {%- endif -%}
  {%- set app_ids = spark_incremental._session_app_ids_var() -%}
  {#- offline (lint) compiles, and compiles before the events table exists, get a
      placeholder column list -#}
  {%- set event_columns = ['event_id'] -%}
  {%- if events is not none and spark_incremental._can_query()
        and not spark_incremental._missing_at_compile(events) -%}
    {%- set event_columns = spark_incremental._event_columns(events) -%}
    {%- set lowered = event_columns | map('lower') | list -%}
    {%- for name, column in [('session_identifier', session_identifier), ('user_identifier', user_identifier)] -%}
      {%- if column | lower not in lowered -%}
        {%- do exceptions.raise_compiler_error(
            "spark_incremental: spark_incremental__" ~ name ~ " = '" ~ column ~ "' is not a column of "
            ~ events ~ ". Its columns are: " ~ event_columns | join(', ')) -%}
      {%- endif -%}
    {%- endfor -%}
    {%- for column in ['dvce_created_tstamp', 'dvce_sent_tstamp'] if column not in lowered -%}
      {%- do exceptions.raise_compiler_error(
          "spark_incremental: the events table " ~ events ~ " has no " ~ column ~ " column, which the"
          ~ " late-sent filter (spark_incremental__days_late_allowed) reads.") -%}
    {%- endfor -%}
    {%- if app_ids | length > 0 and 'app_id' not in lowered -%}
      {%- do exceptions.raise_compiler_error(
          "spark_incremental: spark_incremental__app_ids is set but the events table " ~ events
          ~ " has no app_id column.") -%}
    {%- endif -%}
  {%- endif -%}
  {{- return({
      'session_identifier': session_identifier,
      'user_identifier': user_identifier,
      'max_session_days': max_session_days,
      'days_late_allowed': days_late_allowed,
      'session_lookback_days': session_lookback_days,
      'allow_null_dvce_tstamps': allow_null,
      'app_ids': app_ids,
      'event_columns': event_columns,
  }) -}}
{%- endmacro %}


{#- A var that names a column: a plain identifier. -#}
{% macro _session_column_var(name) -%}
  {%- set value = spark_incremental.get_config_var(name) -%}
  {%- if value is not string or not modules.re.match('^[A-Za-z_][A-Za-z0-9_]*$', value) -%}
    {%- do exceptions.raise_compiler_error(
        "spark_incremental: spark_incremental__" ~ name ~ " = '" ~ value
        ~ "' is not a column name (default " ~ spark_incremental._config_var_defaults()[name] ~ ").") -%}
  {%- endif -%}
  {{- return(value) -}}
{%- endmacro %}


{#- A var that holds a whole number of days >= minimum. -#}
{% macro _session_days_var(name, minimum, default) -%}
  {%- set value = spark_incremental.get_config_var(name) -%}
  {%- if value is not number or value is sameas true or value is sameas false
        or value != value | int or value < minimum -%}
    {%- do exceptions.raise_compiler_error(
        "spark_incremental: spark_incremental__" ~ name ~ " = " ~ value
        ~ " is not allowed: it must be a whole number of days >= " ~ minimum ~ " (default " ~ default ~ ").") -%}
  {%- endif -%}
  {{- return(value | int) -}}
{%- endmacro %}


{#- app_ids: a list of strings ([] = every app); a single string is a list of one. -#}
{% macro _session_app_ids_var() -%}
  {%- set value = spark_incremental.get_config_var('app_ids') -%}
  {%- if value is none -%}
    {{- return([]) -}}
  {%- endif -%}
  {%- if value is string -%}
    {%- set value = [value] -%}
  {%- endif -%}
  {%- if value is mapping or value is not iterable -%}
    {%- do exceptions.raise_compiler_error(
        "spark_incremental: spark_incremental__app_ids = " ~ value
        ~ " is not allowed: it must be a list of app_id values ([] = all apps).") -%}
  {%- endif -%}
  {%- for app_id in value if app_id is not string -%}
    {%- do exceptions.raise_compiler_error(
        "spark_incremental: spark_incremental__app_ids must hold strings; " ~ app_id ~ " is not one.") -%}
  {%- endfor -%}
  {{- return(value | list) -}}
{%- endmacro %}

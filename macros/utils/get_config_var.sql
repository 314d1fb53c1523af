{#- The package's vars, with their defaults, in one place.
    Every var is read through here so that hooks and materializations, which run in
    the root project's context where a package's own `vars:` are not visible, see the
    same defaults as the package's models. -#}
{% macro _config_var_defaults() -%}
  {{- return({
      'start_date': '2020-01-01',
      'backfill_limit_days': 30,
      'lookback_window_hours': 6,
      'session_timestamp': 'collector_tstamp',
      'events_schema': 'atomic',
      'events_table': 'events',
      'events_partition_column': none,
      'load_timestamp': 'load_tstamp',
      'events_enabled': true,
      'models_to_remove': [],
      'allow_refresh': false,
      'now': none,
      'session_identifier': 'domain_sessionid',
      'user_identifier': 'domain_userid',
      'max_session_days': 3,
      'days_late_allowed': 3,
      'session_lookback_days': 730,
      'allow_null_dvce_tstamps': false,
      'app_ids': [],
      'manifest_compact_after': 50,
      'offline_compile': false,
      'lock_timeout_minutes': 15,
      'force_unlock': false,
      'changes': [],
      'changes_file': none,
      'log_plan': false,
      'restate': none,
      'target_partition_rows': 1000000,
      'fail_at': none,
  }) -}}
{%- endmacro %}


{% macro get_config_var(name) -%}
  {%- set defaults = spark_incremental._config_var_defaults() -%}
  {%- if name not in defaults -%}
    {%- do exceptions.raise_compiler_error(
        "spark_incremental: unknown var 'spark_incremental__" ~ name ~ "'. Known vars: "
        ~ (defaults.keys() | sort | join(', '))) -%}
  {%- endif -%}
  {{- return(var('spark_incremental__' ~ name, defaults[name])) -}}
{%- endmacro %}

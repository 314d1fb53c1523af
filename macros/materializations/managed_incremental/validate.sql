{#- Config checks for managed_incremental, run before any SQL. Every error names the
    model, the config key, the bad value and what is allowed; nothing is written.

    _managed_config(node=none) reads the config of `node` (a graph node; default: the model
    being compiled or run) and returns the checked settings:
      model, mutability_type ('immutable', 'full_mutation', 'append_only', 'ds_append_only',
      'incremental_indicator'; with no mutability 'upsert' when unique_key is given, else
      'append', dbt's incremental without a key), along (the
      window column: type_params.along, or type_params.indicator), along_key (its config
      key, for messages), min / max (text or none), update_cron (text or none), cron
      (parsed), grace (parsed, see _grace_parse), unique_key / partition_by (lists),
      file_format, upsert_date_key, upsert_lookback_days, merge_columns (see
      _managed_merge_columns), incremental_predicates (a list), forward_only, schema_change
      (see _on_schema_change_settings), overwrite_partitions (incremental_strategy
      'insert_overwrite' without mutability), fingerprint (the settings whose change
      forces a rebuild). -#}
{% macro _managed_mutability_types() -%}
  {{- return({
      'immutable': [],
      'full_mutation': ['update_cron'],
      'append_only': ['along', 'min', 'max', 'update_cron', 'grace_period'],
      'ds_append_only': ['along', 'min', 'max', 'update_cron', 'grace_period'],
      'incremental_indicator': ['indicator', 'update_cron', 'grace_period'],
      'time_intervals': [],
  }) -}}
{%- endmacro %}


{#- The mutability types whose source only ever adds rows. A described change that says
    rows changed or went (anything but ADD_ROWS and its dirty variant) rebuilds a model of
    one of them: its own runs cannot have seen such a change (_full_refresh_reason). -#}
{% macro _managed_adding_types() -%}
  {{- return(['immutable', 'append_only', 'ds_append_only']) -}}
{%- endmacro %}


{#- The mutability types that read a window along a column (type_params.along, or the
    indicator) and keep its high-water mark. -#}
{% macro _managed_along_types() -%}
  {{- return(['append_only', 'ds_append_only', 'incremental_indicator']) -}}
{%- endmacro %}


{% macro _managed_file_formats() -%}
  {{- return(['parquet', 'orc', 'delta', 'iceberg', 'hudi']) -}}
{%- endmacro %}


{#- The table formats among them: written by merge (atomic statements), never by the
    partition rewrite of the write layer (apply_table.sql), which the others use. -#}
{% macro _managed_table_formats() -%}
  {{- return(['delta', 'iceberg', 'hudi']) -}}
{%- endmacro %}


{% macro _managed_config(node=none) -%}
  {%- set node = node if node is not none else model -%}
  {%- set conf = node.config -%}
  {%- set name = node.name -%}
  {%- set prefix = "spark_incremental: model '" ~ name ~ "': " -%}
  {%- set types = spark_incremental._managed_mutability_types() -%}
  {%- set mutability = conf.get('mutability') -%}
  {%- set unique_key = spark_incremental._managed_name_list(conf.get('unique_key'), 'unique_key', prefix) -%}
  {%- set partition_by = spark_incremental._managed_name_list(conf.get('partition_by'), 'partition_by', prefix) -%}

  {#- keys users put at the top level by mistake -#}
  {%- for key in ['grace_period', 'along', 'update_cron', 'incremental_indicator'] -%}
    {%- if conf.get(key) is not none -%}
      {%- do exceptions.raise_compiler_error(prefix ~ key ~ " = " ~ conf.get(key) ~ " is not a config key of its own:"
          ~ " put it in mutability={'type': ..., 'type_params': {'" ~ ('indicator' if key == 'incremental_indicator' else key)
          ~ "': ...}}.") -%}
    {%- endif -%}
  {%- endfor -%}

  {#- time intervals (docs/changes_and_intervals.md): a time_column makes the model's
      mutability type time_intervals -#}
  {%- set intervals = spark_incremental._interval_settings(name, {
      'time_column': conf.get('time_column'), 'start': conf.get('start'),
      'interval_unit': conf.get('interval_unit'), 'cron': conf.get('cron'),
      'batch_size': conf.get('batch_size')}) -%}
  {%- if intervals is not none and mutability is none -%}
    {%- set mutability = {'type': 'time_intervals', 'type_params': {}} -%}
  {%- endif -%}

  {#- no mutability: dbt's incremental contract, an upsert by unique_key, or without a
      key (none, '' or []) a plain append of what the query selects -#}
  {%- set declared = mutability is not none -%}
  {%- if mutability is none -%}
    {%- set mutability = {'type': 'upsert' if unique_key | length > 0 else 'append', 'type_params': {}} -%}
  {%- elif mutability is string -%}
    {%- set mutability = {'type': mutability, 'type_params': {}} -%}
  {%- elif mutability is not mapping -%}
    {%- do exceptions.raise_compiler_error(prefix ~ "mutability = " ~ mutability ~ " is not allowed: it must be a dict"
        ~ " {'type': one of " ~ types.keys() | list | join(', ') ~ ", 'type_params': {...}}.") -%}
  {%- endif -%}

  {%- set unknown = mutability.keys() | reject('in', ['type', 'type_params']) | list -%}
  {%- if unknown | length > 0 -%}
    {%- do exceptions.raise_compiler_error(prefix ~ "mutability has unknown keys " ~ unknown | join(', ')
        ~ "; allowed: type, type_params.") -%}
  {%- endif -%}
  {%- set mutability_type = mutability.get('type') -%}
  {%- if mutability_type not in types and (declared or mutability_type not in ['upsert', 'append']) -%}
    {%- do exceptions.raise_compiler_error(prefix ~ "mutability.type = '" ~ mutability_type ~ "' is not allowed."
        ~ " Allowed: " ~ types.keys() | list | join(', ') ~ " (or no mutability: an upsert model with unique_key,"
        ~ " an append model without).") -%}
  {%- endif -%}
  {%- if (mutability_type == 'time_intervals') != (intervals is not none) -%}
    {%- do exceptions.raise_compiler_error(prefix ~ (
        "mutability.type = 'time_intervals' needs time_column and start (the time interval settings)."
        if intervals is none else
        "time_column = '" ~ conf.get('time_column') ~ "' is set with mutability.type = '" ~ mutability_type
        ~ "'. Allowed: time_column only for time intervals (leave mutability unset, or 'time_intervals').")) -%}
  {%- endif -%}
  {%- set params = mutability.get('type_params') or {} -%}
  {%- if params is not mapping -%}
    {%- do exceptions.raise_compiler_error(prefix ~ "mutability.type_params = " ~ params ~ " is not allowed: it must be a dict"
        ~ " with keys among " ~ (types.get(mutability_type) or []) | join(', ') ~ ".") -%}
  {%- endif -%}
  {%- set allowed_params = types.get(mutability_type) or [] -%}
  {%- for key in params.keys() -%}
    {%- if key not in allowed_params -%}
      {%- do exceptions.raise_compiler_error(prefix ~ "mutability.type_params." ~ key ~ " = " ~ params[key]
          ~ " is not allowed for type '" ~ mutability_type ~ "'. Allowed type_params: "
          ~ (allowed_params | join(', ') if allowed_params else 'none') ~ ".") -%}
    {%- endif -%}
  {%- endfor -%}

  {#- the window column -#}
  {%- set along = none -%}
  {%- set along_key = none -%}
  {%- if mutability_type in ['append_only', 'ds_append_only'] -%}
    {%- set along_key = 'mutability.type_params.along' -%}
    {%- set along = params.get('along', 'ds' if mutability_type == 'ds_append_only' else none) -%}
    {%- if along is none -%}
      {%- do exceptions.raise_compiler_error(prefix ~ along_key ~ " is missing: type '" ~ mutability_type
          ~ "' needs the column the data grows along, e.g. type_params={'along': 'ds'} (or use ds_append_only,"
          ~ " where along defaults to ds).") -%}
    {%- endif -%}
  {%- elif mutability_type == 'incremental_indicator' -%}
    {%- set along_key = 'mutability.type_params.indicator' -%}
    {%- set along = params.get('indicator') -%}
    {%- if along is none -%}
      {%- do exceptions.raise_compiler_error(prefix ~ along_key ~ " is missing: type 'incremental_indicator' needs a"
          ~ " monotonically increasing column (tinyint, smallint, int, bigint, decimal(p,0), date or timestamp), e.g."
          ~ " type_params={'indicator': 'updated_at', 'grace_period': 3600}.") -%}
    {%- endif -%}
  {%- endif -%}
  {%- if along is not none and (along is not string or not modules.re.match('^[A-Za-z_][A-Za-z0-9_]*$', along)) -%}
    {%- do exceptions.raise_compiler_error(prefix ~ along_key ~ " = " ~ along ~ " is not allowed: it must be a column name.") -%}
  {%- endif -%}

  {#- min / max -#}
  {%- set bounds = {'min': none, 'max': none} -%}
  {%- for key in ['min', 'max'] -%}
    {%- set value = params.get(key) -%}
    {%- if value is not none -%}
      {%- if value is not string and value is not number and value.year is not defined -%}
        {%- do exceptions.raise_compiler_error(prefix ~ "mutability.type_params." ~ key ~ " = " ~ value
            ~ " is not allowed: it must be a date 'YYYY-MM-DD', a timestamp 'YYYY-MM-DD HH:MM:SS' or a number.") -%}
      {%- endif -%}
      {%- do bounds.update({key: (value | string) if value.year is not defined else spark_incremental._ts_text(spark_incremental._parse_ts(value))}) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- if bounds['min'] is not none and bounds['max'] is not none -%}
    {%- set kind = spark_incremental._managed_bound_kind(bounds['min'], bounds['max']) -%}
    {%- if spark_incremental._along_compare(bounds['min'], bounds['max'], kind) > 0 -%}
      {%- do exceptions.raise_compiler_error(prefix ~ "mutability.type_params.min = '" ~ bounds['min']
          ~ "' is after mutability.type_params.max = '" ~ bounds['max'] ~ "'. Allowed: min <= max"
          ~ " (defaults 1000-01-01 and 9999-12-31).") -%}
    {%- endif -%}
  {%- endif -%}

  {#- update_cron -#}
  {%- set update_cron = params.get('update_cron', '0 * * * *' if mutability_type == 'full_mutation' else none) -%}
  {%- set cron = none -%}
  {%- if update_cron is not none -%}
    {%- set cron = spark_incremental._cron_parse(update_cron, "model '" ~ name ~ "': mutability.type_params.update_cron") -%}
  {%- endif -%}

  {#- grace_period -#}
  {%- set grace = spark_incremental._grace_parse(params.get('grace_period'), "model '" ~ name ~ "': mutability.type_params.grace_period") -%}

  {#- file format and layout -#}
  {%- set file_format = (conf.get('file_format') or 'parquet') | lower -%}
  {%- if file_format not in spark_incremental._managed_file_formats() -%}
    {%- do exceptions.raise_compiler_error(prefix ~ "file_format = '" ~ file_format ~ "' is not allowed. Allowed: "
        ~ spark_incremental._managed_file_formats() | join(', ') ~ ".") -%}
  {%- endif -%}
  {%- if conf.get('location_root') is not none -%}
    {%- do exceptions.raise_compiler_error(prefix ~ "location_root = '" ~ conf.get('location_root') ~ "' is not"
        ~ " allowed: managed_incremental swaps managed tables by renaming them. Allowed: no location_root"
        ~ " (set the schema's location instead).") -%}
  {%- endif -%}

  {#- upsert scan bound -#}
  {%- set upsert_date_key = conf.get('upsert_date_key') -%}
  {%- if upsert_date_key is not none and (upsert_date_key is not string or not modules.re.match('^[A-Za-z_][A-Za-z0-9_]*$', upsert_date_key)) -%}
    {%- do exceptions.raise_compiler_error(prefix ~ "upsert_date_key = " ~ upsert_date_key ~ " is not allowed: it must be a column name.") -%}
  {%- endif -%}
  {%- if upsert_date_key is not none and unique_key | length == 0 -%}
    {%- do exceptions.raise_compiler_error(prefix ~ "upsert_date_key = '" ~ upsert_date_key ~ "' is set without a unique_key."
        ~ " Allowed: upsert_date_key only with unique_key (it bounds the scan for existing keys).") -%}
  {%- endif -%}
  {%- set lookback = spark_incremental._model_config_value(prefix, 'upsert_lookback_days', conf.get('upsert_lookback_days'),
      'integer', 30, "a whole number of days >= 0 (an integer, or its digits as text; default 30)") -%}

  {#- forward-only and partition strategies (docs/changes_and_intervals.md); what a
      change of the query's columns does (on_schema_change, one rule with forward_only) -#}
  {%- set forward_only = spark_incremental._forward_only_settings(name, conf.get('forward_only'), conf.get('on_destructive_change')) -%}
  {#- dbt fills on_schema_change with 'ignore' when unset: only what the project wrote counts -#}
  {%- set on_schema_change = conf.get('on_schema_change') -%}
  {%- if on_schema_change == 'ignore' and 'on_schema_change' not in (node.get('unrendered_config') or {}) -%}
    {%- set on_schema_change = none -%}
  {%- endif -%}
  {%- set schema_change = spark_incremental._on_schema_change_settings(name, on_schema_change,
      forward_only, conf.get('on_destructive_change'), declared) -%}
  {%- set partition_strategy = conf.get('partition_strategy') -%}
  {%- if partition_strategy is not none and partition_strategy not in ['indicator', 'user', 'distribution'] -%}
    {%- do exceptions.raise_compiler_error(prefix ~ "partition_strategy = '" ~ partition_strategy ~ "' is not allowed."
        ~ " Allowed: indicator, user, distribution (or unset: partition_by as written).") -%}
  {%- endif -%}

  {#- dbt's incremental_strategy, as dbt-spark reads it, for a model that declares no
      mutability (a declared mutability decides what is replaced): insert_overwrite
      replaces the partitions the query writes (the whole table without partition_by),
      append and merge write by unique_key as without it -#}
  {%- set strategy = conf.get('incremental_strategy') -%}
  {%- if strategy == 'microbatch' -%}
    {%- do exceptions.raise_compiler_error(prefix ~ "incremental_strategy = 'microbatch' is not a strategy of"
        ~ " managed_incremental: declare time intervals instead (time_column, start, interval_unit, batch_size;"
        ~ " README, 'Time intervals'), which keep the done intervals in the manifest."
        ~ " Allowed: append, merge, insert_overwrite (or unset).") -%}
  {%- elif strategy is not none and strategy not in ['append', 'merge', 'insert_overwrite'] -%}
    {%- do exceptions.raise_compiler_error(prefix ~ "incremental_strategy = '" ~ strategy ~ "' is not allowed."
        ~ " Allowed: append, merge, insert_overwrite (dbt-spark's; or unset).") -%}
  {%- endif -%}
  {#- dbt's merge_update_columns / merge_exclude_columns (merge_columns.sql) -#}
  {%- set merge_columns = spark_incremental._managed_merge_columns(conf, prefix, unique_key, declared, strategy) -%}
  {#- dbt's incremental_predicates (incremental_predicates.sql) -#}
  {%- set incremental_predicates = spark_incremental._managed_incremental_predicates(conf, prefix, unique_key,
      declared, strategy) -%}

  {#- skip the run when the window brings nothing new (a model of the sessionised
      pipeline: it reads spark_incremental_base_events_this_run or the window) -#}
  {%- set skip_without_new_events = spark_incremental._model_config_value(prefix, 'skip_without_new_events',
      conf.get('skip_without_new_events'), 'boolean', false,
      "true or false (or the text 'true' / 'false', any case; default false)") -%}

  {%- set defaults = mutability_type in ['append_only', 'ds_append_only'] -%}
  {{- return({
      'model': name,
      'mutability_type': mutability_type,
      'along': along,
      'along_key': along_key,
      'min': bounds['min'] if bounds['min'] is not none or not defaults else '1000-01-01',
      'max': bounds['max'] if bounds['max'] is not none or not defaults else '9999-12-31',
      'min_set': bounds['min'] is not none,
      'max_set': bounds['max'] is not none,
      'update_cron': update_cron,
      'cron': cron,
      'grace': grace,
      'unique_key': unique_key,
      'partition_by': partition_by,
      'file_format': file_format,
      'upsert_date_key': upsert_date_key,
      'upsert_lookback_days': lookback,
      'intervals': intervals,
      'forward_only': forward_only,
      'schema_change': schema_change,
      'partition_strategy': partition_strategy,
      'overwrite_partitions': strategy == 'insert_overwrite' and not declared,
      'merge_columns': merge_columns,
      'incremental_predicates': incremental_predicates,
      'skip_without_new_events': skip_without_new_events,
      'fingerprint': {
          'mutability_type': mutability_type,
          'along': along,
          'min': bounds['min'],
          'max': bounds['max'],
          'unique_key': unique_key,
          'partition_by': partition_by,
          'file_format': file_format,
          'time_column': intervals.time_column if intervals else none,
          'interval_unit': intervals.unit if intervals else none,
      },
  }) -}}
{%- endmacro %}


{#- unique_key / partition_by: none, a column name or a list of them -> list, each name
    once ('' and [] are no column, as in dbt). -#}
{% macro _managed_name_list(value, key, prefix) -%}
  {%- if value is none or (value is string and value | trim == '') -%}
    {{- return([]) -}}
  {%- endif -%}
  {%- set names = [value] if value is string else value -%}
  {%- if names is not iterable or names is mapping -%}
    {%- do exceptions.raise_compiler_error(prefix ~ key ~ " = " ~ value ~ " is not allowed: it must be a column name or a list of column names.") -%}
  {%- endif -%}
  {%- for name in names -%}
    {%- if name is not string or not modules.re.match('^[A-Za-z_][A-Za-z0-9_]*$', name) -%}
      {%- do exceptions.raise_compiler_error(prefix ~ key ~ " = " ~ value ~ " is not allowed: '" ~ name
          ~ "' is not a column name (a column name or a list of column names).") -%}
    {%- endif -%}
  {%- endfor -%}
  {{- return(names | unique(case_sensitive=false) | list) -}}
{%- endmacro %}

{#- The current manifest state by model (one query): {model: {last_success (datetime),
    mutability_type, last_refresh (text), high_water_mark, high_water_mark_type,
    last_action, session_time_zone}}. Empty when the log does not exist yet. The same
    read gives every managed model's state, the session time zone, the load watermark
    (_load_watermark) and the log's partition count (compact_manifest) to the rest of the
    invocation (_run_cache 'managed_states', 'session_time_zone', 'load_watermark',
    'log_partitions'), so that none of them is read again. at_lock: the state the run
    lock read with its locks, when nothing but lock rows was appended since (the run
    limits use it: one query fewer per run). -#}
{% macro _manifest_current_rows(at_lock=false) -%}
  {%- if at_lock -%}
    {#- the run lock read the state with its locks (_open_locks), after this run's lock row
        was appended; no row but lock rows was appended since (append_manifest_rows drops
        the snapshot) -#}
    {%- set snapshot = spark_incremental._run_cache('manifest_at_lock') -%}
    {%- if 'found' in snapshot -%}
      {{- return(snapshot.found) -}}
    {%- endif -%}
  {%- endif -%}
  {%- set log_relation = spark_incremental.manifest_log_relation() -%}
  {%- if not spark_incremental._relation_exists(log_relation) -%}
    {{- return({}) -}}
  {%- endif -%}
  {{- return(spark_incremental._manifest_current_store(
      spark_incremental._fetch_rows(spark_incremental._manifest_current_select_sql(log_relation)))) -}}
{%- endmacro %}


{#- The query of _manifest_current_rows: one row per model but the lock, with the columns
    of _manifest_current_columns in their order. lock_holders (the run lock's read,
    _open_locks): each row starts with kind ('state' or 'lock'), holder, locked_at,
    seen_at and unlocked, and the lock's holders come out as 'lock' rows, from the same
    scan of the log. -#}
{% macro _manifest_current_select_sql(log_relation, lock_holders=false) -%}
    with current_state as (
        {{ spark_incremental._manifest_current_sql(log_relation, log_facts=true, lock_holders=lock_holders) }}
    )
    select
        {%- if lock_holders %}
        case when holder is null then 'state' else 'lock' end as kind,
        holder,
        date_format(locked_at, 'yyyy-MM-dd HH:mm:ss.SSSSSS') as locked_at,
        date_format(seen_at, 'yyyy-MM-dd HH:mm:ss.SSSSSS') as seen_at,
        unlocked,
        {%- endif %}
        {%- for name, expression in spark_incremental._manifest_current_columns() %}
        {{ expression }} as {{ name }}{{ ',' if not loop.last }}
        {%- endfor %}
    from current_state
    where
        {%- if lock_holders %}
        holder is not null or
        {%- endif %}
        model != {{ spark_incremental._quote(spark_incremental._lock_model_name()) }}
{%- endmacro %}


{#- The columns of _manifest_current_select_sql as (name, expression) pairs, in the order
    _manifest_current_store reads them. -#}
{% macro _manifest_current_columns() -%}
  {{- return([
      ('model', 'model'),
      ('last_success', "date_format(last_success, 'yyyy-MM-dd HH:mm:ss')"),
      ('mutability_type', 'mutability_type'),
      ('last_refresh', "date_format(last_refresh, 'yyyy-MM-dd HH:mm:ss')"),
      ('high_water_mark', 'high_water_mark'),
      ('high_water_mark_type', 'high_water_mark_type'),
      ('last_action', 'last_action'),
      ('session_time_zone', 'current_timezone()'),
      ('state', 'state'),
      ('load_watermark', "date_format(log_load_watermark, 'yyyy-MM-dd HH:mm:ss.SSSSSS')"),
      ('log_partitions', 'log_partition_count'),
  ]) -}}
{%- endmacro %}


{#- The rows of _manifest_current_select_sql as {model: {...}}, and the caches they fill. -#}
{% macro _manifest_current_store(rows) -%}
  {%- set found = {} -%}
  {%- set managed = {} -%}
  {%- for row in rows -%}
    {%- do found.update({row[0]: {
        'last_success': spark_incremental._parse_ts(row[1]), 'mutability_type': row[2], 'last_refresh': row[3],
        'high_water_mark': row[4], 'high_water_mark_type': row[5], 'last_action': row[6],
        'session_time_zone': row[7]}}) -%}
    {%- do spark_incremental._run_cache('session_time_zone').update({'zone': row[7]}) -%}
    {%- do spark_incremental._run_cache('load_watermark').update({'value': spark_incremental._parse_ts(row[9])}) -%}
    {%- do spark_incremental._run_cache('log_partitions').update({'count': row[10] | int}) -%}
    {#- a managed row always holds a state (JSON text): without one the model has no managed state -#}
    {%- if row[8] is not none -%}
      {%- do managed.update({row[0]: spark_incremental._managed_state_from_row(row[2], row[3], row[4], row[5], row[8], row[6])}) -%}
    {%- endif -%}
  {%- endfor -%}
  {#- a model that wrote its state in this invocation is read from the log again (written) -#}
  {%- set known = spark_incremental._run_cache('managed_states') -%}
  {%- do known.setdefault('written', []) -%}
  {%- do known.update({'by_model': managed}) -%}
  {{- return(found) -}}
{%- endmacro %}

{#- The current manifest state by model (one query): {model: {last_success (datetime),
    mutability_type, last_refresh (text), high_water_mark, high_water_mark_type,
    last_action, session_time_zone}}. Empty when the log does not exist yet. The same
    read gives every managed model's state, the session time zone, the load watermark
    (_load_watermark) and the log's partition count (compact_manifest) to the rest of the
    invocation (_run_cache 'managed_states', 'session_time_zone', 'load_watermark',
    'log_partitions'), so that none of them is read again. -#}
{% macro _manifest_current_rows() -%}
  {%- set log_relation = spark_incremental.manifest_log_relation() -%}
  {%- set found = {} -%}
  {%- if not spark_incremental._relation_exists(log_relation) -%}
    {{- return(found) -}}
  {%- endif -%}
  {%- set sql -%}
    with current_state as (
        {{ spark_incremental._manifest_current_sql(log_relation) }}
    )
    select
        model,
        date_format(last_success, 'yyyy-MM-dd HH:mm:ss') as last_success,
        mutability_type,
        date_format(last_refresh, 'yyyy-MM-dd HH:mm:ss') as last_refresh,
        high_water_mark,
        high_water_mark_type,
        last_action,
        current_timezone() as session_time_zone,
        state,
        (
            select date_format(max(last_success), 'yyyy-MM-dd HH:mm:ss.SSSSSS')
            from {{ log_relation }}
            where
                model = {{ spark_incremental._quote(spark_incremental._load_watermark_name()) }}
                and record_type = 'load'
        ) as load_watermark,
        (select count(distinct batch_id) from {{ log_relation }}) as log_partitions
    from current_state
    where model != {{ spark_incremental._quote(spark_incremental._lock_model_name()) }}
  {%- endset -%}
  {%- set managed = {} -%}
  {%- for row in spark_incremental._fetch_rows(sql) -%}
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

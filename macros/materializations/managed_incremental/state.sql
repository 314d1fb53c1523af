{#- A managed_incremental model's state lives in the manifest log as 'managed' rows; the
    current state is the latest one by written_at (see _manifest_current_sql). -#}

{#- Read: none when the model has no state (or the log does not exist yet); else
    {mutability_type, last_refresh (datetime), high_water_mark (text),
     high_water_mark_type, state (dict from the JSON), action}. Only reads. A state this
    invocation recorded for the end hook (_managed_write_state, at_end) answers first (a
    test in dbt build reads it). When this invocation read the whole current state
    already (_manifest_current_rows, in the limits model) and the model has not written
    its state since, that read answers. -#}
{% macro _managed_read_state(model_name) -%}
  {%- set log_relation = spark_incremental.manifest_log_relation() -%}
  {%- if not spark_incremental._relation_exists(log_relation) -%}
    {{- return(none) -}}
  {%- endif -%}
  {#- a state this invocation recorded for the end hook to write (_managed_write_state) -#}
  {%- set pending = spark_incremental._run_cache('pending_states').get(model_name) -%}
  {%- if pending is not none -%}
    {{- return(spark_incremental._managed_state_from_row(pending.mutability_type,
        spark_incremental._ts_text(pending.last_refresh) if pending.last_refresh is not none else none,
        pending.high_water_mark, pending.high_water_mark_type, pending.state, pending.action)) -}}
  {%- endif -%}
  {%- set known = spark_incremental._run_cache('managed_states') -%}
  {%- if 'by_model' in known and model_name not in known.written -%}
    {{- return(known.by_model.get(model_name)) -}}
  {%- endif -%}
  {%- set sql -%}
    select
        mutability_type,
        date_format(last_refresh, 'yyyy-MM-dd HH:mm:ss') as last_refresh,
        high_water_mark,
        high_water_mark_type,
        state,
        action
    from {{ log_relation }}
    where
        model = {{ spark_incremental._quote(model_name) }}
        and record_type = 'managed'
    order by written_at desc
    limit 1
  {%- endset -%}
  {%- set rows = spark_incremental._fetch_rows(sql) -%}
  {%- if rows | length == 0 -%}
    {{- return(none) -}}
  {%- endif -%}
  {%- set row = rows[0] -%}
  {{- return(spark_incremental._managed_state_from_row(row[0], row[1], row[2], row[3], row[4], row[5])) -}}
{%- endmacro %}


{#- A 'managed' row's columns (last_refresh as 'YYYY-MM-DD HH:MM:SS' text, state as JSON
    text) as _managed_read_state returns them. -#}
{% macro _managed_state_from_row(mutability_type, last_refresh, high_water_mark, high_water_mark_type, state, action) -%}
  {{- return({
      'mutability_type': mutability_type,
      'last_refresh': spark_incremental._parse_ts(last_refresh),
      'high_water_mark': high_water_mark,
      'high_water_mark_type': high_water_mark_type,
      'state': fromjson(state) if state else {},
      'action': action,
  }) -}}
{%- endmacro %}


{#- Write one 'managed' row; state is a dict, stored as JSON text.
    at_end: the model's state after its write, the run's outcome for the model. When the
    project's on-run-end hook is update_manifest (_end_hook_records_states), the row is
    kept for it, stamped now, and the end hook appends it with the run's other rows in its
    one insert, only if the model succeeded (_pending_state_rows): one statement and one
    log partition fewer per model and run. A run killed before its end records no such
    row, as a run killed just before the write of the row did: the next run finds the
    model's table ahead of its state and redoes that work (the high-water mark, the
    intervals and the changes are recorded by the rows that did reach the log).
    Otherwise (a step in the middle of a model's work: intervals forgotten before a
    rebuild, a done interval batch), or without that hook, the row is appended now. -#}
{% macro _managed_write_state(model_name, mutability_type, last_refresh, high_water_mark, high_water_mark_type, state, action, at_end=false) -%}
  {%- set row = {
      'model': model_name,
      'record_type': 'managed',
      'mutability_type': mutability_type,
      'last_refresh': last_refresh,
      'high_water_mark': high_water_mark,
      'high_water_mark_type': high_water_mark_type,
      'state': tojson(state, sort_keys=true),
      'action': action,
  } -%}
  {%- if at_end and spark_incremental._end_hook_records_states() -%}
    {%- do row.update({'written_at': modules.datetime.datetime.utcnow()}) -%}
    {%- do spark_incremental._run_cache('pending_states').update({model_name: row}) -%}
    {{- return(none) -}}
  {%- endif -%}
  {#- a later read of this model's state in this invocation (a test in dbt build) reads the log -#}
  {%- do spark_incremental._run_cache('managed_states').setdefault('written', []).append(model_name) -%}
  {%- do spark_incremental.append_manifest_rows([row]) -%}
{%- endmacro %}

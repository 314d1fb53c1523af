{#- A managed_incremental model's state lives in the manifest log as 'managed' rows; the
    current state is the latest one by written_at (see _manifest_current_sql). -#}

{#- Read: none when the model has no state (or the log does not exist yet); else
    {mutability_type, last_refresh (datetime), high_water_mark (text),
     high_water_mark_type, state (dict from the JSON), action}. Only reads. -#}
{% macro _managed_read_state(model_name) -%}
  {%- set log_relation = spark_incremental.manifest_log_relation() -%}
  {%- if not spark_incremental._relation_exists(log_relation) -%}
    {{- return(none) -}}
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
  {{- return({
      'mutability_type': row[0],
      'last_refresh': spark_incremental._parse_ts(row[1]),
      'high_water_mark': row[2],
      'high_water_mark_type': row[3],
      'state': fromjson(row[4]) if row[4] else {},
      'action': row[5],
  }) -}}
{%- endmacro %}


{#- Write: append one 'managed' row. state is a dict, stored as JSON text. -#}
{% macro _managed_write_state(model_name, mutability_type, last_refresh, high_water_mark, high_water_mark_type, state, action) -%}
  {%- do spark_incremental.append_manifest_rows([{
      'model': model_name,
      'record_type': 'managed',
      'mutability_type': mutability_type,
      'last_refresh': last_refresh,
      'high_water_mark': high_water_mark,
      'high_water_mark_type': high_water_mark_type,
      'state': tojson(state, sort_keys=true),
      'action': action,
  }]) -%}
{%- endmacro %}

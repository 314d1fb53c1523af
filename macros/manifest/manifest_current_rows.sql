{#- The current manifest state by model (one query): {model: {last_success (datetime),
    mutability_type, last_refresh (text), high_water_mark, high_water_mark_type,
    last_action, session_time_zone}}. Empty when the log does not exist yet. -#}
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
        current_timezone() as session_time_zone
    from current_state
    where model != {{ spark_incremental._quote(spark_incremental._lock_model_name()) }}
  {%- endset -%}
  {%- for row in spark_incremental._fetch_rows(sql) -%}
    {%- do found.update({row[0]: {
        'last_success': spark_incremental._parse_ts(row[1]), 'mutability_type': row[2], 'last_refresh': row[3],
        'high_water_mark': row[4], 'high_water_mark_type': row[5], 'last_action': row[6],
        'session_time_zone': row[7]}}) -%}
  {%- endfor -%}
  {{- return(found) -}}
{%- endmacro %}

{#- What decides a run table's columns, as an md5: the model's SQL template, the file
    format and its write options (so a table built with other options is built again,
    once), the events table's columns and types, and the sessionisation vars (the
    column names among them). Everything else the SQL depends on (the run limits, the
    sessions' range) changes its rows, not its columns. Recorded by every build of the
    table (spark_incremental.shape_md5), so a run with nothing new keeps the table only
    while every reader would find the columns it expects. No statement: the events
    table's columns are read once per invocation. -#}
{% macro _run_table_shape_md5(raw_code, file_format) -%}
  {%- set events = spark_incremental._event_columns(spark_incremental.events_relation()) -%}
  {%- set session_vars = spark_incremental.validate_session_vars() -%}
  {%- set parts = [raw_code, file_format, spark_incremental._scratch_table_options(file_format)] -%}
  {%- for name in events.columns -%}
    {%- do parts.append(name ~ ' ' ~ events.types.get(name | lower, '')) -%}
  {%- endfor -%}
  {%- for name in session_vars | sort -%}
    {%- do parts.append(name ~ '=' ~ session_vars[name]) -%}
  {%- endfor -%}
  {{- return(local_md5(parts | join('\n'))) -}}
{%- endmacro %}

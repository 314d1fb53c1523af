{#- A model's time-interval settings (SQLMesh's incremental by time range), validated, or
    none when the model declares no time_column. `raw` holds the model's config values:
    time_column, start, interval_unit (minute, hour, day, week, month; default day),
    cron (default: once per interval), batch_size (intervals per statement; default: a
    whole run of missing intervals in one statement). Errors name the model and the key. -#}
{% macro _interval_settings(model_name, raw) -%}
  {%- if not raw.get('time_column') -%}
    {{- return(none) -}}
  {%- endif -%}
  {%- set where = "model '" ~ model_name ~ "': " -%}
  {%- set units = {'minute': '* * * * *', 'hour': '0 * * * *', 'day': '0 0 * * *', 'week': '0 0 * * 1', 'month': '0 0 1 * *'} -%}
  {%- set time_column = raw.get('time_column') -%}
  {%- if time_column is not string or not modules.re.match('^[A-Za-z_][A-Za-z0-9_]*$', time_column) -%}
    {%- do exceptions.raise_compiler_error(
        "spark_incremental: " ~ where ~ "time_column = '" ~ time_column ~ "' is not a column name") -%}
  {%- endif -%}
  {%- set unit = (raw.get('interval_unit') or 'day') | string | lower -%}
  {%- if unit not in units -%}
    {%- do exceptions.raise_compiler_error(
        "spark_incremental: " ~ where ~ "interval_unit = '" ~ raw.get('interval_unit') ~ "' is not allowed;"
        ~ " use one of " ~ units.keys() | join(', ')) -%}
  {%- endif -%}
  {%- if not raw.get('start') -%}
    {%- do exceptions.raise_compiler_error(
        "spark_incremental: " ~ where ~ "time_column needs a start (the first interval, 'YYYY-MM-DD' or 'YYYY-MM-DD HH:MM:SS' UTC)") -%}
  {%- endif -%}
  {%- set start = spark_incremental._interval_floor(
      spark_incremental._parse_ts(raw.get('start'), where ~ 'start'), unit) -%}
  {%- set batch_size = spark_incremental._model_config_value("spark_incremental: " ~ where, 'batch_size',
      raw.get('batch_size'), 'integer', none, "a whole number of intervals >= 1 (an integer, or its digits as"
      ~ " text), or unset: each run of missing intervals in one statement", minimum=1) -%}
  {%- set cron_text = raw.get('cron') or units[unit] -%}
  {%- set cron = spark_incremental._cron_parse(cron_text, where ~ 'cron') -%}
  {{- return({
      'time_column': time_column | lower,
      'unit': unit,
      'start': start,
      'batch_size': batch_size,
      'cron': cron,
      'cron_text': cron_text,
  }) -}}
{%- endmacro %}

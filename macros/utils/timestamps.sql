{#- Timestamps cross between Jinja and SQL as 'YYYY-MM-DD HH:MM:SS' text. -#}

{% macro _parse_ts(value, what='timestamp') -%}
  {%- if value is none -%}
    {{- return(none) -}}
  {%- endif -%}
  {%- if value is not string -%}
    {%- if value.hour is defined -%}
      {{- return(value.replace(tzinfo=none)) -}}
    {%- endif -%}
    {{- return(modules.datetime.datetime(value.year, value.month, value.day)) -}}
  {%- endif -%}
  {%- set text = value | trim -%}
  {%- for fmt in ['%Y-%m-%d %H:%M:%S.%f', '%Y-%m-%d %H:%M:%S', '%Y-%m-%dT%H:%M:%S', '%Y-%m-%d %H:%M', '%Y-%m-%d'] -%}
    {%- set parsed = spark_incremental._try_strptime(text, fmt) -%}
    {%- if parsed is not none -%}
      {{- return(parsed) -}}
    {%- endif -%}
  {%- endfor -%}
  {%- do exceptions.raise_compiler_error(
      "spark_incremental: " ~ what ~ " = '" ~ value ~ "' is not a date or timestamp."
      ~ " Use 'YYYY-MM-DD' or 'YYYY-MM-DD HH:MM:SS' (UTC).") -%}
{%- endmacro %}


{% macro _try_strptime(text, fmt) -%}
  {#- strptime raises on a mismatch; Jinja cannot catch, so check the shape first. -#}
  {%- set patterns = {
      '%Y-%m-%d %H:%M:%S.%f': '^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}\\.\\d{1,6}$',
      '%Y-%m-%d %H:%M:%S': '^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}$',
      '%Y-%m-%dT%H:%M:%S': '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}$',
      '%Y-%m-%d %H:%M': '^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}$',
      '%Y-%m-%d': '^\\d{4}-\\d{2}-\\d{2}$',
  } -%}
  {%- if not modules.re.match(patterns[fmt], text) -%}
    {{- return(none) -}}
  {%- endif -%}
  {%- set parts = modules.re.findall('\\d+', text) | map('int') | list -%}
  {%- if parts[1] < 1 or parts[1] > 12 or parts[2] < 1 or parts[2] > 31
        or (parts | length > 3 and (parts[3] > 23 or parts[4] > 59))
        or (parts | length > 5 and parts[5] > 59) -%}
    {{- return(none) -}}
  {%- endif -%}
  {%- set last_day = spark_incremental._days_in_month(parts[0], parts[1]) -%}
  {%- if parts[2] > last_day -%}
    {{- return(none) -}}
  {%- endif -%}
  {{- return(modules.datetime.datetime.strptime(text, fmt)) -}}
{%- endmacro %}


{% macro _days_in_month(year, month) -%}
  {%- if month == 12 -%}
    {{- return(31) -}}
  {%- endif -%}
  {%- set first_next = modules.datetime.date(year, month + 1, 1) -%}
  {{- return((first_next - modules.datetime.timedelta(days=1)).day) -}}
{%- endmacro %}


{% macro _ts_text(dt) -%}
  {%- if dt is none -%}
    {{- return(none) -}}
  {%- endif -%}
  {{- return(dt.strftime('%Y-%m-%d %H:%M:%S')) -}}
{%- endmacro %}


{#- A timestamp literal Spark reads the same in every session time zone setting
    that the package supports (UTC; see the README). -#}
{% macro _ts_literal(dt) -%}
  {%- if dt is none -%}
    {{- return('cast(null as timestamp)') -}}
  {%- endif -%}
  {{- return("timestamp'" ~ spark_incremental._ts_text(dt) ~ "'") -}}
{%- endmacro %}


{#- A timestamp literal to the microsecond (load watermarks). -#}
{% macro _ts_literal_precise(dt) -%}
  {{- return("timestamp'" ~ dt.strftime('%Y-%m-%d %H:%M:%S.%f') ~ "'") -}}
{%- endmacro %}

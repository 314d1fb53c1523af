{#- Grace periods. A grace period is a number of `along` units: days for a date (or a
    'YYYY-MM-DD' string) column, seconds for a timestamp column, plain units for an
    integer column or indicator (tinyint .. bigint, decimal(p,0)). Date and timestamp
    columns also accept text like '2 days', '6 hours', '30 minutes', '45 seconds'. -#}

{#- Parse the configured value without knowing the column yet: a number >= 0, or
    {'amount', 'unit'} text. Returns {'number': n} or {'amount': n, 'unit': 'seconds'|...}
    or none. -#}
{% macro _grace_parse(value, what) -%}
  {%- if value is none or value is sameas false -%}
    {{- return(none) -}}
  {%- endif -%}
  {%- set allowed = "a number >= 0 of along units (days for a date, seconds for a timestamp, units for an integer"
      ~ " indicator), or text like '2 days', '6 hours', '30 minutes' for a date or timestamp column" -%}
  {#- digit text (a config set from env_var) is the number, as for the vars (_check_config_var) -#}
  {%- set whole = spark_incremental._check_config_var({'type': 'integer', 'minimum': 0}, value) if value is string else none -%}
  {%- if whole is not none and whole.problem is none -%}
    {%- set value = whole.value -%}
  {%- endif -%}
  {%- if value is number and value is not sameas true -%}
    {%- if value < 0 -%}
      {%- do exceptions.raise_compiler_error("spark_incremental: " ~ what ~ " = " ~ value ~ " is not allowed: it must be " ~ allowed ~ ".") -%}
    {%- endif -%}
    {{- return({'number': value, 'text': value | string}) -}}
  {%- endif -%}
  {%- set match = modules.re.match('^\\s*(\\d+)\\s*(second|minute|hour|day)s?\\s*$', (value | string) | lower) if value is string else none -%}
  {%- if match is none -%}
    {%- do exceptions.raise_compiler_error("spark_incremental: " ~ what ~ " = '" ~ value ~ "' is not allowed: it must be " ~ allowed ~ ".") -%}
  {%- endif -%}
  {%- set seconds = {'second': 1, 'minute': 60, 'hour': 3600, 'day': 86400}[match.group(2)] -%}
  {{- return({'amount': match.group(1) | int, 'unit': match.group(2), 'seconds': (match.group(1) | int) * seconds, 'text': value | string}) -}}
{%- endmacro %}


{#- Check a parsed grace period against the along column's kind; returns the amount to
    subtract: an int for 'integer', a timedelta for 'date' / 'string' (days) and
    'timestamp' (seconds). -#}
{% macro _grace_for_kind(grace, kind, what) -%}
  {%- if grace is none -%}
    {{- return(none) -}}
  {%- endif -%}
  {%- if kind == 'integer' -%}
    {%- if grace.number is not defined or grace.number != (grace.number | int) -%}
      {%- do exceptions.raise_compiler_error(
          "spark_incremental: " ~ what ~ " = '" ~ grace.text ~ "' is not allowed for an integer column:"
          ~ " it must be a whole number of the column's units (e.g. 100), not a duration.") -%}
    {%- endif -%}
    {{- return(grace.number | int) -}}
  {%- elif kind in ['date', 'string'] -%}
    {%- if grace.number is defined -%}
      {%- if grace.number != (grace.number | int) -%}
        {%- do exceptions.raise_compiler_error(
            "spark_incremental: " ~ what ~ " = " ~ grace.text ~ " is not allowed for a date column: it must be a whole number of days.") -%}
      {%- endif -%}
      {{- return(modules.datetime.timedelta(days=grace.number | int)) -}}
    {%- endif -%}
    {%- if grace.seconds % 86400 != 0 -%}
      {%- do exceptions.raise_compiler_error(
          "spark_incremental: " ~ what ~ " = '" ~ grace.text ~ "' is not allowed for a date column: it must be whole days (e.g. '2 days').") -%}
    {%- endif -%}
    {{- return(modules.datetime.timedelta(seconds=grace.seconds)) -}}
  {%- elif kind == 'timestamp' -%}
    {%- if grace.number is defined -%}
      {{- return(modules.datetime.timedelta(seconds=grace.number)) -}}
    {%- endif -%}
    {{- return(modules.datetime.timedelta(seconds=grace.seconds)) -}}
  {%- endif -%}
  {%- do exceptions.raise_compiler_error(
      "spark_incremental: " ~ what ~ " needs an integer, date, timestamp or 'YYYY-MM-DD' string column.") -%}
{%- endmacro %}


{#- value (text) minus a grace amount (from _grace_for_kind), as text of the same kind.
    Integers are exact (Python ints: decimal(38,0) never goes through a float). -#}
{% macro _grace_subtract(value, grace, kind) -%}
  {%- if value is none or grace is none -%}
    {{- return(value) -}}
  {%- endif -%}
  {%- if kind == 'integer' -%}
    {{- return(((value | string | trim | int) - grace) | string) -}}
  {%- endif -%}
  {%- set parsed = spark_incremental._parse_ts(value | string, 'high-water mark') -%}
  {%- set lowered = parsed - grace -%}
  {%- if kind in ['date', 'string'] and lowered.hour == 0 and lowered.minute == 0 and lowered.second == 0 -%}
    {{- return(lowered.strftime('%Y-%m-%d')) -}}
  {%- elif lowered.microsecond -%}
    {{- return(lowered.strftime('%Y-%m-%d %H:%M:%S.%f')) -}}
  {%- endif -%}
  {{- return(lowered.strftime('%Y-%m-%d %H:%M:%S')) -}}
{%- endmacro %}

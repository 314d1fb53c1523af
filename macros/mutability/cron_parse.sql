{#- Parse a standard 5-field cron expression (minute hour day-of-month month day-of-week,
    UTC) into the sorted values of each field. Supports `*`, lists, ranges and steps
    (`*/4`, `1-30/10`, `5/15`), day of week 0-7 (0 and 7 are Sunday) and the aliases
    @hourly, @daily, @weekly, @monthly, @yearly. `what` names the setting in errors
    (e.g. "model 'x': mutability.type_params.update_cron"). Raises a compiler error on
    a wrong number of fields, an out-of-range value or a cron that never fires. -#}
{% macro _cron_parse(expression, what='cron') -%}
  {%- set aliases = {
      '@hourly': '0 * * * *',
      '@daily': '0 0 * * *',
      '@midnight': '0 0 * * *',
      '@weekly': '0 0 * * 0',
      '@monthly': '0 0 1 * *',
      '@yearly': '0 0 1 1 *',
      '@annually': '0 0 1 1 *',
  } -%}
  {%- set allowed = "5 fields 'minute hour day-of-month month day-of-week' (UTC) with *, lists (1,15),"
      ~ " ranges (1-5) and steps (*/4, 1-30/10), or @hourly/@daily/@weekly/@monthly/@yearly" -%}
  {%- if expression is not string -%}
    {%- do exceptions.raise_compiler_error(
        "spark_incremental: " ~ what ~ " = " ~ expression ~ " is not a cron expression: it must be a string of " ~ allowed ~ ".") -%}
  {%- endif -%}
  {%- set text = aliases.get(expression | trim | lower, expression | trim) -%}
  {%- set parts = text.split() -%}
  {%- if parts | length != 5 -%}
    {%- do exceptions.raise_compiler_error(
        "spark_incremental: " ~ what ~ " = '" ~ expression ~ "' has " ~ parts | length
        ~ " fields; a cron needs " ~ allowed ~ ".") -%}
  {%- endif -%}
  {%- set specs = [
      ('minute', 0, 59),
      ('hour', 0, 23),
      ('day-of-month', 1, 31),
      ('month', 1, 12),
      ('day-of-week', 0, 7),
  ] -%}
  {%- set parsed = {'expression': expression | trim} -%}
  {%- for name, low, high in specs -%}
    {%- set values = spark_incremental._cron_parse_field(parts[loop.index0], name, low, high, what, expression) -%}
    {%- if name == 'day-of-week' -%}
      {%- set sundays = [] -%}
      {%- for value in values -%}
        {%- do sundays.append(0 if value == 7 else value) -%}
      {%- endfor -%}
      {%- set values = sundays | unique | sort | list -%}
    {%- endif -%}
    {%- do parsed.update({name: values}) -%}
  {%- endfor -%}
  {%- do parsed.update({
      'dom_star': parts[2].startswith('*'),
      'dow_star': parts[4].startswith('*'),
  }) -%}
  {%- if spark_incremental._cron_next(parsed, modules.datetime.datetime(2000, 1, 1)) is none -%}
    {%- do exceptions.raise_compiler_error(
        "spark_incremental: " ~ what ~ " = '" ~ expression ~ "' never fires (no such day,"
        ~ " e.g. day 30 of February); use " ~ allowed ~ ".") -%}
  {%- endif -%}
  {{- return(parsed) -}}
{%- endmacro %}


{#- One cron field -> sorted list of ints; raises on bad syntax or out-of-range values. -#}
{% macro _cron_parse_field(field, name, low, high, what, expression) -%}
  {%- set values = [] -%}
  {%- set problem = {'text': none} -%}
  {%- for item in field.split(',') -%}
    {%- set match = modules.re.match('^(\\*|\\d+)(?:-(\\d+))?(?:/(\\d+))?$', item) -%}
    {%- if match is none or (match.group(1) == '*' and match.group(2) is not none) -%}
      {%- do problem.update({'text': "'" ~ item ~ "' is not a value, range (a-b) or step (*/n, a-b/n)"}) -%}
      {%- break -%}
    {%- endif -%}
    {%- if match.group(1) == '*' -%}
      {%- set start = low -%}
      {%- set stop = (6 if name == 'day-of-week' else high) -%}
    {%- else -%}
      {%- set start = match.group(1) | int -%}
      {%- set stop = (match.group(2) | int) if match.group(2) is not none else (high if match.group(3) is not none else start) -%}
    {%- endif -%}
    {%- set step = (match.group(3) | int) if match.group(3) is not none else 1 -%}
    {%- if start < low or start > high or stop < low or stop > high -%}
      {%- do problem.update({'text': "'" ~ item ~ "' is out of range " ~ low ~ "-" ~ high}) -%}
      {%- break -%}
    {%- endif -%}
    {%- if stop < start -%}
      {%- do problem.update({'text': "'" ~ item ~ "' is a range that ends before it starts"}) -%}
      {%- break -%}
    {%- endif -%}
    {%- if step < 1 -%}
      {%- do problem.update({'text': "'" ~ item ~ "' has a step of 0"}) -%}
      {%- break -%}
    {%- endif -%}
    {%- for value in range(start, stop + 1, step) -%}
      {%- do values.append(value) -%}
    {%- endfor -%}
  {%- endfor -%}
  {%- if problem.text is not none -%}
    {%- do exceptions.raise_compiler_error(
        "spark_incremental: " ~ what ~ " = '" ~ expression ~ "': in the " ~ name ~ " field, "
        ~ problem.text ~ " (allowed: " ~ low ~ "-" ~ high ~ ", *, lists, ranges, steps).") -%}
  {%- endif -%}
  {{- return(values | unique | sort | list) -}}
{%- endmacro %}

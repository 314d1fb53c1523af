{#- Interval arithmetic on naive UTC datetimes. Weeks start on Monday. -#}
{% macro _interval_floor(dt, unit) -%}
  {%- set datetime = modules.datetime.datetime -%}
  {%- if unit == 'minute' -%}
    {{- return(datetime(dt.year, dt.month, dt.day, dt.hour, dt.minute)) -}}
  {%- elif unit == 'hour' -%}
    {{- return(datetime(dt.year, dt.month, dt.day, dt.hour)) -}}
  {%- elif unit == 'day' -%}
    {{- return(datetime(dt.year, dt.month, dt.day)) -}}
  {%- elif unit == 'week' -%}
    {{- return(datetime(dt.year, dt.month, dt.day) - modules.datetime.timedelta(days=dt.weekday())) -}}
  {%- endif -%}
  {{- return(datetime(dt.year, dt.month, 1)) -}}
{%- endmacro %}


{#- dt + n units (dt on a unit boundary). -#}
{% macro _interval_add(dt, unit, n) -%}
  {%- set timedelta = modules.datetime.timedelta -%}
  {%- if unit == 'minute' -%}
    {{- return(dt + timedelta(minutes=n)) -}}
  {%- elif unit == 'hour' -%}
    {{- return(dt + timedelta(hours=n)) -}}
  {%- elif unit == 'day' -%}
    {{- return(dt + timedelta(days=n)) -}}
  {%- elif unit == 'week' -%}
    {{- return(dt + timedelta(days=7 * n)) -}}
  {%- endif -%}
  {%- set months = dt.year * 12 + dt.month - 1 + n -%}
  {{- return(dt.replace(year=months // 12, month=months % 12 + 1)) -}}
{%- endmacro %}


{#- The smallest unit boundary >= dt. -#}
{% macro _interval_ceil(dt, unit) -%}
  {%- set floor = spark_incremental._interval_floor(dt, unit) -%}
  {{- return(floor if floor == dt else spark_incremental._interval_add(floor, unit, 1)) -}}
{%- endmacro %}


{#- How many units lie in [start, end) (both on unit boundaries). -#}
{% macro _interval_count(start, end, unit) -%}
  {%- if unit == 'month' -%}
    {{- return((end.year * 12 + end.month) - (start.year * 12 + start.month)) -}}
  {%- endif -%}
  {%- set seconds = {'minute': 60, 'hour': 3600, 'day': 86400, 'week': 604800}[unit] -%}
  {{- return(((end - start).total_seconds() // seconds) | int) -}}
{%- endmacro %}

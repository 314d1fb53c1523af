{#- The first time strictly after `after` (a naive UTC datetime) at which the parsed cron
    (see _cron_parse) fires, or none when it fires in no day of the next 9 years.
    Day of month and day of week follow Vixie cron: when both are restricted a day
    matches either; when one is `*`, only the other counts. -#}
{% macro _cron_next(cron, after) -%}
  {%- set start = after.replace(second=0, microsecond=0) + modules.datetime.timedelta(minutes=1) -%}
  {%- set first_day = modules.datetime.datetime(start.year, start.month, start.day) -%}
  {%- for offset in range(0, 3300) -%}
    {%- set day = first_day + modules.datetime.timedelta(days=offset) -%}
    {%- if day.month not in cron['month'] -%}
      {%- continue -%}
    {%- endif -%}
    {%- if not spark_incremental._cron_day_matches(cron, day) -%}
      {%- continue -%}
    {%- endif -%}
    {%- for hour in cron['hour'] -%}
      {%- if offset == 0 and hour < start.hour -%}
        {%- continue -%}
      {%- endif -%}
      {%- for minute in cron['minute'] -%}
        {%- if offset == 0 and hour == start.hour and minute < start.minute -%}
          {%- continue -%}
        {%- endif -%}
        {{- return(day.replace(hour=hour, minute=minute)) -}}
      {%- endfor -%}
    {%- endfor -%}
  {%- endfor -%}
  {{- return(none) -}}
{%- endmacro %}


{% macro _cron_day_matches(cron, day) -%}
  {%- set dow = (day.weekday() + 1) % 7 -%}
  {%- set dom_ok = day.day in cron['day-of-month'] -%}
  {%- set dow_ok = dow in cron['day-of-week'] -%}
  {%- if cron['dom_star'] and cron['dow_star'] -%}
    {{- return(true) -}}
  {%- elif cron['dom_star'] -%}
    {{- return(dow_ok) -}}
  {%- elif cron['dow_star'] -%}
    {{- return(dom_ok) -}}
  {%- endif -%}
  {{- return(dom_ok or dow_ok) -}}
{%- endmacro %}


{#- Is a refresh due? due = the cron fired in (last_refresh, now]; a model never
    refreshed is due. Returns {'due': bool, 'next_due': datetime or none}. -#}
{% macro _cron_due(cron, last_refresh, now) -%}
  {%- if last_refresh is none -%}
    {{- return({'due': true, 'next_due': none}) -}}
  {%- endif -%}
  {%- set next_due = spark_incremental._cron_next(cron, last_refresh) -%}
  {{- return({'due': next_due is not none and next_due <= now, 'next_due': next_due}) -}}
{%- endmacro %}

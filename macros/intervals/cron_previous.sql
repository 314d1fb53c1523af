{#- The latest time at or before `at` (naive UTC) at which a parsed cron (see
    _cron_parse) fires, or none when it fired on no day of the 9 years before. -#}
{% macro _cron_previous(cron, at) -%}
  {%- set top = at.replace(second=0, microsecond=0) -%}
  {%- set last_day = modules.datetime.datetime(top.year, top.month, top.day) -%}
  {%- for offset in range(0, 3300) -%}
    {%- set day = last_day - modules.datetime.timedelta(days=offset) -%}
    {%- if day.month not in cron['month'] or not spark_incremental._cron_day_matches(cron, day) -%}
      {%- continue -%}
    {%- endif -%}
    {%- for hour in cron['hour'] | reverse -%}
      {%- if offset == 0 and hour > top.hour -%}
        {%- continue -%}
      {%- endif -%}
      {%- for minute in cron['minute'] | reverse -%}
        {%- if offset == 0 and hour == top.hour and minute > top.minute -%}
          {%- continue -%}
        {%- endif -%}
        {{- return(day.replace(hour=hour, minute=minute)) -}}
      {%- endfor -%}
    {%- endfor -%}
  {%- endfor -%}
  {{- return(none) -}}
{%- endmacro %}

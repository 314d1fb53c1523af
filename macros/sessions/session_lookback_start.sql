{#- Where the lifecycle manifest's search for a run's sessions starts: midnight of the day
    of lower_limit - session_lookback_days. Whole days, because the upsert replaces keys in
    whole start_date partitions (from the earliest staged start_date, on or after this
    day): a row of that day read by a time bound would be missed by the merge yet replaced
    by the upsert, losing a reused id's old session. The quarantine's fallback read starts
    here too. -#}
{% macro _session_lookback_start(lower_limit, session_vars) -%}
  {%- set start = lower_limit - modules.datetime.timedelta(days=session_vars.session_lookback_days) -%}
  {{- return(start.replace(hour=0, minute=0, second=0, microsecond=0)) -}}
{%- endmacro %}

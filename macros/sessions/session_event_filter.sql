{#- The event-level rules of sessionisation, as one SQL condition: a session identifier
    is present, the app is one of spark_incremental__app_ids (when set), and the event was
    sent at most days_late_allowed days after it was created (null device timestamps pass
    only with allow_null_dvce_tstamps). The lifecycle manifest and events_this_run use the
    same condition, so a session's bounds and its events always agree. -#}
{% macro _session_event_filter(session_vars, alias=none) -%}
  {%- set prefix = alias ~ '.' if alias else '' -%}
  {%- set late_sent -%}
    {{ prefix }}dvce_sent_tstamp <= {{ spark_incremental._add_days(prefix ~ 'dvce_created_tstamp', session_vars.days_late_allowed) }}
  {%- endset -%}
  {{ prefix }}{{ session_vars.session_identifier }} is not null
        and {% if session_vars.allow_null_dvce_tstamps -%}
          coalesce({{ late_sent }}, true)
        {%- else -%}
          {{ late_sent }}
        {%- endif %}
  {%- if session_vars.app_ids | length > 0 %}
        and {{ prefix }}app_id in ({% for app_id in session_vars.app_ids %}{{ spark_incremental._quote(app_id) }}{{ ', ' if not loop.last }}{% endfor %})
  {%- endif -%}
{%- endmacro %}

{#- The event-level rules of sessionisation, as one SQL condition: a session identifier
    and an event identifier are present (an event without an identifier cannot be told
    from its copies, so it is dropped), the app (spark_incremental__app_id_column) is one
    of spark_incremental__app_ids (when both are set), and the event was sent at most
    days_late_allowed days after it was created (device_sent_timestamp and
    device_created_timestamp; null device timestamps pass only with
    allow_null_dvce_tstamps; no such filter when either var is null). The lifecycle
    manifest and events_this_run use the same condition, so a session's bounds and its
    events always agree. -#}
{% macro _session_event_filter(session_vars, alias=none) -%}
  {%- set prefix = alias ~ '.' if alias else '' -%}
  {%- set conditions = [prefix ~ adapter.quote(session_vars.session_identifier) ~ ' is not null',
                        prefix ~ adapter.quote(session_vars.event_identifier) ~ ' is not null'] -%}
  {%- if session_vars.device_created_timestamp and session_vars.device_sent_timestamp -%}
    {%- set late_sent = prefix ~ adapter.quote(session_vars.device_sent_timestamp) ~ ' <= '
        ~ spark_incremental._add_days(prefix ~ adapter.quote(session_vars.device_created_timestamp),
                                      session_vars.days_late_allowed) -%}
    {%- do conditions.append('coalesce(' ~ late_sent ~ ', true)' if session_vars.allow_null_dvce_tstamps else late_sent) -%}
  {%- endif -%}
  {%- if session_vars.app_ids | length > 0 and session_vars.app_id_column -%}
    {%- do conditions.append(prefix ~ adapter.quote(session_vars.app_id_column) ~ ' in ('
        ~ spark_incremental._quoted_app_ids(session_vars) ~ ')') -%}
  {%- endif -%}
  {{- conditions | join('\n        and ') -}}
{%- endmacro %}

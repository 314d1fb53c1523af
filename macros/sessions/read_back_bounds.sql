{#- How far before the window a run's sessions and their events' earlier copies can lie.
    These are the bounds that sessions_this_run and events_this_run filter on, and that
    the plan lists as events_this_run's reads of the events table before the window.
    A session's end is at most start + max_session_days (a longer one is quarantined), so
    a session with an event at or after lower_limit started at
    _earliest_session_start(lower_limit) or later. A copy of an event is sent at most
    days_late_allowed days after the event was created, so an earlier copy of an event
    at `earliest_event` or later lies at _earliest_copy(earliest_event) or later. -#}
{% macro _earliest_session_start(lower_limit, session_vars) -%}
  {{- return(lower_limit - modules.datetime.timedelta(days=session_vars.max_session_days)) -}}
{%- endmacro %}


{% macro _earliest_copy(earliest_event, session_vars) -%}
  {{- return(earliest_event - modules.datetime.timedelta(days=session_vars.days_late_allowed)) -}}
{%- endmacro %}

{#- What events_this_run reads of the events table outside the window, as an upper bound.
    Before the window, it reads from the earliest start of a session of the run
    (_earliest_session_start) and, with dedupe_across_runs, from the earliest place an
    earlier copy of one of their events can lie (_earliest_copy of that start). The run
    knows its sessions' real earliest start and reads from there, later or as far.
    After the window (a restatement whose sessions go on past it) it reads up to
    sessions_until. Returns a _plan_window_scan result for the union of those ranges, plus
    reads_from: the first timestamp read. -#}
{% macro _plan_read_back_scan(events, limits) -%}
  {%- set session_vars = spark_incremental.validate_session_vars() -%}
  {%- set reads_from = spark_incremental._earliest_session_start(limits.lower_limit, session_vars) -%}
  {%- if spark_incremental.get_config_var('dedupe_across_runs') -%}
    {%- set reads_from = spark_incremental._earliest_copy(reads_from, session_vars) -%}
  {%- endif -%}
  {%- set scan = dict(spark_incremental._plan_window_scan(events, reads_from, limits.lower_limit)) -%}
  {%- if limits.sessions_until > limits.upper_limit and scan.exists -%}
    {%- set forward = spark_incremental._plan_window_scan(events, limits.upper_limit, limits.sessions_until) -%}
    {%- do scan.update({'partitions': (scan.partitions + forward.partitions) | unique | sort | list}) -%}
    {%- for key in ['files', 'bytes', 'estimated_rows'] -%}
      {%- do scan.update({key: scan[key] + forward[key]}) -%}
    {%- endfor -%}
  {%- endif -%}
  {%- do scan.update({'reads_from': reads_from}) -%}
  {{- return(scan) -}}
{%- endmacro %}

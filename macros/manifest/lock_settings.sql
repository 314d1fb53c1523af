{#- The run lock's names and times (the protocol: acquire_run_lock.sql). -#}


{% macro _lock_model_name() -%}
  {{- return('__spark_incremental_run_lock__') -}}
{%- endmacro %}


{#- How long the oldest of several open locks waits at least for the others' 'unlock'
    rows (seconds), and how long it sleeps between two reads (milliseconds). A run that
    started together with it backs off within a read and an append: the wait is three
    times what this run's own append and read took, if that is longer (on a loaded
    server, 3.9 s of waiting was seen with two runs started together). -#}
{% macro _lock_wait_seconds() -%}
  {{- return(4) -}}
{%- endmacro %}


{% macro _lock_poll_ms() -%}
  {{- return(500) -}}
{%- endmacro %}


{#- Whole minutes, 1 or more (checked by the var spec, before the lock is taken). -#}
{% macro _lock_timeout_minutes() -%}
  {{- return(spark_incremental.get_config_var('lock_timeout_minutes')) -}}
{%- endmacro %}


{#- The smallest lock_timeout_minutes (whole minutes) under which a stretch of `seconds`
    without a lock row cannot let another run in: 1.5 times it (the newest lock row may be a
    third of the timeout old when the stretch begins), rounded up. -#}
{% macro _lock_timeout_for(seconds) -%}
  {{- return((seconds * 1.5 / 60) | round(0, 'ceil') | int) -}}
{%- endmacro %}

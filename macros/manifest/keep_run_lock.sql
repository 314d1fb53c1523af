{#- A hook for the project's own models: keeps this run's lock on the manifest alive while
    they run, and stops a run whose lock was taken over meanwhile. Use as
        models:
          +pre-hook: "{{ spark_incremental.keep_run_lock() }}"
    in dbt_project.yml. Without it only the package's points (models that read the run
    limits, managed_incremental models, interval batches) keep the lock, so a long stretch
    of other models after them can leave it silent for lock_timeout_minutes. Renders no
    statement: it appends a heartbeat only when the run's newest lock row is a third of the
    timeout old (and first reads the open locks then); in a run that took no lock, in
    compile and at parse it does nothing. -#}
{% macro keep_run_lock() -%}
  {{- return(adapter.dispatch('keep_run_lock', 'spark_incremental')()) -}}
{%- endmacro %}


{% macro default__keep_run_lock() -%}
  {%- do spark_incremental._keep_run_lock() -%}
  {{- return('') -}}
{%- endmacro %}

{#- Every line the package logs starts with 'spark_incremental: ' so operators can grep it. -#}
{% macro _log(message) -%}
  {%- do log('spark_incremental: ' ~ message, info=true) -%}
{%- endmacro %}


{#- A warning that dbt raises as an error (--warn-error, --warn-error-options) stops the
    run. A start hook that holds the run lock releases it first, as before its own errors
    (_stop_run). The end hook, before its one append (progress, the managed models'
    states, the lock's release), keeps the warning (run_lock 'deferred') and raises it
    after that append (_raise_deferred_warnings): the run still fails, with its work
    recorded and its lock released. -#}
{% macro _warn(message) -%}
  {%- if spark_incremental._warnings_are_errors() -%}
    {%- set lock = spark_incremental._run_cache('run_lock') -%}
    {%- if lock.get('ending') and not lock.get('recorded') -%}
      {%- if 'deferred' not in lock -%}
        {%- do lock.update({'deferred': []}) -%}
      {%- endif -%}
      {%- do lock.deferred.append(message) -%}
      {{- return(none) -}}
    {%- endif -%}
    {%- do spark_incremental._release_start_lock() -%}
    {%- do exceptions.warn('spark_incremental: ' ~ message) -%}
    {#- dbt has raised it; should its own settings differ, the run still stops here -#}
    {%- do exceptions.raise_compiler_error('spark_incremental: ' ~ message) -%}
  {%- endif -%}
  {%- do exceptions.warn('spark_incremental: ' ~ message) -%}
{%- endmacro %}


{#- The end hook's warnings kept by _warn until its append: each is logged, then the last
    is raised (dbt makes it an error), or none is (as_log) when the hook raises an error of
    its own next, which then names what stopped the run. -#}
{% macro _raise_deferred_warnings(as_log=false) -%}
  {%- set lock = spark_incremental._run_cache('run_lock') -%}
  {%- do lock.update({'recorded': true}) -%}
  {%- set deferred = lock.pop('deferred', []) -%}
  {%- for message in deferred -%}
    {%- if as_log or not loop.last -%}
      {%- do spark_incremental._log('warning: ' ~ message) -%}
    {%- else -%}
      {%- do spark_incremental._warn(message) -%}
    {%- endif -%}
  {%- endfor -%}
{%- endmacro %}

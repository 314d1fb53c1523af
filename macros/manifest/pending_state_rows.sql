{#- The 'managed' rows this invocation's models kept for the end hook
    (_managed_write_state, at_end), of the models that succeeded among `run_results`
    (this invocation's results, or those of _results_before when the run lock was taken
    over): a model that failed after its write (a post-hook, grants) records no state, as
    if the run had been killed there. Each row carries the time its state was reached. -#}
{% macro _pending_state_rows(run_results) -%}
  {%- set pending = spark_incremental._run_cache('pending_states') -%}
  {%- set rows = [] -%}
  {%- for result in run_results
        if result.node.resource_type == 'model' and result.status == 'success' and result.node.name in pending -%}
    {%- do rows.append(pending[result.node.name]) -%}
  {%- endfor -%}
  {%- set dropped = pending.keys() | reject('in', rows | map(attribute='model') | list) | list -%}
  {%- if dropped | length > 0 -%}
    {%- do spark_incremental._log('manifest: no state recorded for ' ~ dropped | sort | join(', ')
        ~ ' (the model did not succeed, or finished after its run lock was released): the next run redoes its work') -%}
  {%- endif -%}
  {{- return(rows | sort(attribute='written_at')) -}}
{%- endmacro %}

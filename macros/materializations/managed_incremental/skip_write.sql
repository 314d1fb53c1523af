{#- Called from a managed_incremental model's SQL, while dbt renders it: this run has
    nothing to write (the model found so with a query of its own, e.g. the session id
    filter when its date did not move). The run's plan then skips an incremental write:
    no stage, no write, no state row, the reason in the log line. A build (missing table,
    --full-refresh, a config change) and described changes still run. It takes effect
    only when called before the plan is computed, i.e. before the model's first call of
    is_incremental(), along_min(), along_max() or along_filter(); called later, the run
    writes what the SQL selects, as without it. -#}
{% macro skip_write(reason) -%}
  {%- if execute -%}
    {%- do spark_incremental._run_cache('skip_write').update({model.unique_id: reason}) -%}
  {%- endif -%}
{%- endmacro %}


{#- The reason a node's SQL gave to skip_write in this invocation, or none. -#}
{% macro _skip_write_reason(node) -%}
  {{- return(spark_incremental._run_cache('skip_write').get(node.unique_id)) -}}
{%- endmacro %}

{#- A dict kept for this invocation only, under `name`, in the run's graph (the one object
    dbt shares between the rendering of every node, its materialization and the hooks of
    one invocation). For values that cannot change while the invocation runs (the events
    table's columns, the run limits the limits model computed), so that they are read
    once per run and not once per model. Keyed by invocation: a second invocation in the
    same process starts empty. -#}
{% macro _run_cache(name) -%}
  {{- return(graph.setdefault('spark_incremental_' ~ name, {}).setdefault(invocation_id, {})) -}}
{%- endmacro %}

{#- Whether dbt told this invocation what it runs: `selected_resources` is set by the
    selector of run and build, and empty under `dbt retry`, which replays the failed and
    skipped nodes of the run it repeats without a selector (_selected_ids then counts every
    node of the graph as selected). -#}
{% macro _selection_known() -%}
  {{- return((selected_resources | default([], true) | list | length) > 0) -}}
{%- endmacro %}

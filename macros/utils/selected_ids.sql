{#- The unique ids this dbt invocation runs, for every rule that depends on the selection
    (the run lock, the events table check, described changes, restatements). dbt sets
    `selected_resources` from the selector of run and build; `dbt retry` replays the
    failed nodes of the run it repeats without a selector, so there it is empty: the
    selection is unknown, and every node of the graph counts as selected (the retry then
    takes the run lock as a run of the whole project would). -#}
{% macro _selected_ids() -%}
  {%- set selected = selected_resources | default([], true) | list -%}
  {%- if selected | length > 0 or not execute -%}
    {{- return(selected) -}}
  {%- endif -%}
  {{- return(graph.nodes.keys() | list) -}}
{%- endmacro %}

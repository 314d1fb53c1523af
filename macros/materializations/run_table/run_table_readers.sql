{#- The nodes of the project that read a run table (its children in the graph) and
    would still use its rows in a run with nothing new, by name. A reader does not when
    it is a test or an analysis (they write nothing), one of this package's models (each
    decides from the run limits), a managed_incremental model with
    skip_without_new_events=true (it skips its run), or a model whose SQL calls
    is_run_with_new_events() (the filter the README's derived models use: it selects no
    row when nothing is new). Read from the whole project's graph, not only the selected
    nodes, so every invocation decides the same way. -#}
{% macro _run_table_readers_not_skipping(unique_id) -%}
  {%- set readers = [] -%}
  {%- if execute -%}
    {%- for node in graph.nodes.values() if unique_id in ((node.depends_on or {}).get('nodes') or []) -%}
      {%- set node_config = node.config or {} -%}
      {%- set skips = node.resource_type in ['test', 'analysis']
          or node.package_name == 'spark_incremental'
          or (node_config.get('materialized') == 'managed_incremental'
              and spark_incremental._check_config_var({'type': 'boolean'},
                  node_config.get('skip_without_new_events')).value is sameas true)
          or 'is_run_with_new_events' in (node.raw_code or '') -%}
      {%- if not skips -%}
        {%- do readers.append(node.name) -%}
      {%- endif -%}
    {%- endfor -%}
  {%- endif -%}
  {{- return(readers | sort) -}}
{%- endmacro %}

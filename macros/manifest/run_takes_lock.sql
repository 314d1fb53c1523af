{#- Whether this dbt run or dbt build takes the run lock (start_run) and releases it
    (update_manifest): the one rule for both. It does when it may write the package's
    state or read a table the package writes:
    - a var that writes at the start of a run is set (changes, changes_file, restate,
      models_to_remove, force_unlock), or
    - a selected model is the package's own, is tracked (tag spark_incremental), uses
      one of the package's materializations, or selects from a model that is one of
      those (a direct parent).
    Any other run (a model of the project that neither reads nor writes what the
    package keeps) takes no lock: it neither waits for the events pipeline nor makes
    the pipeline wait for it. `values`: validate_config_vars()'s result. -#}
{% macro _run_takes_lock(values) -%}
  {%- for name in ['changes', 'changes_file', 'restate', 'models_to_remove', 'force_unlock'] if values[name] -%}
    {{- return(true) -}}
  {%- endfor -%}
  {%- if not execute -%}
    {{- return(true) -}}
  {%- endif -%}
  {%- for unique_id in spark_incremental._selected_ids() if unique_id in graph.nodes -%}
    {%- set node = graph.nodes[unique_id] -%}
    {%- if spark_incremental._is_package_node(node) -%}
      {{- return(true) -}}
    {%- endif -%}
    {%- for parent_id in node.depends_on.nodes | default([], true) if parent_id in graph.nodes -%}
      {%- if spark_incremental._is_package_node(graph.nodes[parent_id]) -%}
        {{- return(true) -}}
      {%- endif -%}
    {%- endfor -%}
  {%- endfor -%}
  {{- return(false) -}}
{%- endmacro %}


{#- A model whose table the package writes or keeps state for. -#}
{% macro _is_package_node(node) -%}
  {%- if node.resource_type != 'model' -%}
    {{- return(false) -}}
  {%- endif -%}
  {%- set materialized = node.config.materialized | default('', true) | string -%}
  {{- return(node.package_name == 'spark_incremental'
      or 'spark_incremental' in node.tags
      or materialized == 'managed_incremental'
      or materialized.startswith('spark_incremental_')) -}}
{%- endmacro %}

{#- Whether this dbt run or dbt build takes the run lock (start_run) and releases it
    (update_manifest): the one rule for both. It does when it may write the package's
    state or read a table the package writes (_package_touches, with readers):
    - a var that writes at the start of a run is set (changes, changes_file, restate,
      models_to_remove, force_unlock), or
    - a selected model is the package's own, is tracked (tag spark_incremental), uses
      one of the package's materializations, or selects from a model that is one of
      those (a direct parent).
    Any other run (a model of the project that neither reads nor writes what the
    package keeps) takes no lock: it neither waits for the events pipeline nor makes
    the pipeline wait for it. `values`: validate_config_vars()'s result. -#}
{% macro _run_takes_lock(values) -%}
  {{- return(spark_incremental._package_touches(values, readers=true, every=false) | length > 0) -}}
{%- endmacro %}


{#- What in this invocation touches what the package keeps: the vars that write at the
    start of a run (as spark_incremental__<name>), then the selected models whose table
    the package writes or keeps state for (_is_package_node) and, with readers, the
    selected models that select from one of those (a direct parent). every=false stops
    at the first one found. While dbt parses (no graph yet) the answer is '(parse)'. -#}
{% macro _package_touches(values, readers, every) -%}
  {%- set touches = [] -%}
  {%- for name in ['changes', 'changes_file', 'restate', 'models_to_remove', 'force_unlock'] if values[name] -%}
    {%- do touches.append('spark_incremental__' ~ name) -%}
  {%- endfor -%}
  {%- if touches and not every -%}
    {{- return(touches) -}}
  {%- endif -%}
  {%- if not execute -%}
    {{- return(touches + ['(parse)']) -}}
  {%- endif -%}
  {%- for unique_id in spark_incremental._selected_ids() if unique_id in graph.nodes -%}
    {%- set node = graph.nodes[unique_id] -%}
    {%- set ns = namespace(found=spark_incremental._is_package_node(node)) -%}
    {%- for parent_id in node.depends_on.nodes | default([], true)
        if readers and not ns.found and parent_id in graph.nodes -%}
      {%- set ns.found = spark_incremental._is_package_node(graph.nodes[parent_id]) -%}
    {%- endfor -%}
    {%- if ns.found -%}
      {%- do touches.append(node.name) -%}
      {%- if not every -%}
        {{- return(touches) -}}
      {%- endif -%}
    {%- endif -%}
  {%- endfor -%}
  {{- return(touches) -}}
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

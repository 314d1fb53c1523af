{#- The package keeps a model's manifest rows and its managed_incremental state under the
    model's name. Two enabled models of the package's kind (_is_package_node) with one
    name, which dbt allows for the versions of a model (visits v1 and v2) and for models of
    two packages (shown with their package), would share
    them: the run limits would count the name once among the tracked models and wait, in
    state 2, for a backfill of a new model that never comes, and the versions would read
    each other's state. So a run that touches what the package keeps stops here, before
    the run lock, with the models named. -#}
{% macro _check_model_names() -%}
  {%- set by_name = {} -%}
  {%- for node in graph.nodes.values() if node.config.enabled and spark_incremental._is_package_node(node) -%}
    {%- do by_name.setdefault(node.name, []).append((node.package_name ~ '.' if node.package_name != project_name else '')
        ~ node.name ~ ('.v' ~ node.version if node.version is not none else '')) -%}
  {%- endfor -%}
  {%- set shared = [] -%}
  {%- for name, models in by_name | dictsort if models | length > 1 -%}
    {%- do shared.append("'" ~ name ~ "' (" ~ models | sort | join(', ') ~ ')') -%}
  {%- endfor -%}
  {%- if shared -%}
    {%- do exceptions.raise_compiler_error('spark_incremental: more than one model is named ' ~ shared | join(', ')
        ~ ': versions of a model, or models of two packages, that are tracked (tag spark_incremental) or'
        ~ ' managed_incremental. The package keeps its manifest rows and each managed_incremental state under'
        ~ ' the model name, so they would share them: the events pipeline would wait for a backfill that never'
        ~ " comes, and each would read the other's state. Keep the tag and the materialization on one of them"
        ~ ' only, or give the other a model'
        ~ ' name of its own. Nothing was written.') -%}
  {%- endif -%}
{%- endmacro %}

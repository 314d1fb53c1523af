{#- A model whose config says full_refresh=false (the package ties its base state models
    to spark_incremental__allow_refresh) is not rebuilt over its table for any reason: the
    run stops with the reason and the way out. One rule for the two places that know a
    rebuild is coming: the on-run-start hook, for a rebuild that described changes ask for
    (plan_changes, before any model runs), and the materialization, for every other
    (_managed_rebuild). The caller checks that the model has a table. -#}
{% macro _refuse_kept_table_rebuild(node, reason) -%}
  {%- if node.config.get('full_refresh') is sameas false -%}
    {%- do exceptions.raise_compiler_error("spark_incremental: model '" ~ node.name ~ "' must be rebuilt ("
        ~ reason ~ "), but its config full_refresh=false keeps its table; nothing was written. Either undo"
        ~ " what asks for the rebuild, or allow it: remove full_refresh=false from the model's config (for the"
        ~ " package's base models, run with --vars '{spark_incremental__allow_refresh: true}') and run again. "
        ~ spark_incremental._rebuild_cost_text(node.name)) -%}
  {%- endif -%}
{%- endmacro %}

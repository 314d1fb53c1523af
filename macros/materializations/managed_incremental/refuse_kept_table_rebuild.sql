{#- A model whose config says full_refresh=false (the package ties its base state models
    to spark_incremental__allow_refresh) is not rebuilt over its table for any reason: the
    run stops with the reason and the way out. One rule for the two places that know a
    rebuild is coming: the on-run-start hook, for a rebuild that described changes ask for
    (_refresh_plans, through _change_plan_refusal), and the materialization, for every other
    (_managed_rebuild, through _managed_rebuild_refusal); the plan preview
    (spark_incremental.plan) shows the same refusals. The caller checks that the model
    has a table. -#}
{% macro _refuse_kept_table_rebuild(node, reason) -%}
  {%- set refusal = spark_incremental._kept_table_refusal(node, reason) -%}
  {%- if refusal is not none -%}
    {%- do exceptions.raise_compiler_error(refusal) -%}
  {%- endif -%}
{%- endmacro %}


{#- The message that stops a rebuild of `node` for `reason`, or none when its config
    allows the rebuild (anything but full_refresh=false). Reads nothing. -#}
{% macro _kept_table_refusal(node, reason) -%}
  {%- if node.config.get('full_refresh') is not sameas false -%}
    {{- return(none) -}}
  {%- endif -%}
  {{- return("spark_incremental: model '" ~ node.name ~ "' must be rebuilt (" ~ reason
      ~ "), but its config full_refresh=false keeps its table; nothing was written. Either undo"
      ~ " what asks for the rebuild, or allow it: remove full_refresh=false from the model's config (for the"
      ~ " package's base models, run with --vars '{spark_incremental__allow_refresh: true}') and run again. "
      ~ spark_incremental._rebuild_cost_text(node.name)) -}}
{%- endmacro %}

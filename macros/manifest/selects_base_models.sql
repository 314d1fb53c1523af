{#- Whether this invocation selected any of the package's base events models. -#}
{% macro _selects_base_models() -%}
  {%- for unique_id in spark_incremental._selected_ids()
        if unique_id.startswith('model.spark_incremental.spark_incremental_base_') -%}
    {{- return(true) -}}
  {%- endfor -%}
  {{- return(false) -}}
{%- endmacro %}

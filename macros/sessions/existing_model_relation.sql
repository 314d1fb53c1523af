{#- The relation of a package model when its table exists, else none. For reading a
    model that runs later in the same invocation (no ref(): it would be a cycle), e.g.
    the lifecycle manifest reading the quarantine of previous runs. -#}
{% macro _existing_model_relation(name) -%}
  {%- if not spark_incremental._can_query() -%}
    {{- return(none) -}}
  {%- endif -%}
  {%- set relation = spark_incremental._relation_for_model(name) -%}
  {%- if not spark_incremental._relation_exists(relation) -%}
    {{- return(none) -}}
  {%- endif -%}
  {{- return(relation) -}}
{%- endmacro %}

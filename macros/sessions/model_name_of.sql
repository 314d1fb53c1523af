{#- The name the manifest keeps a model's progress under, for `name` as a caller gives it:
    a model's name as is, or the alias of exactly one model, as that model's name.
    `this.name` is the table's name, so a model with an alias that calls
    is_run_with_new_events(this.name) passes its alias. Any other text comes back as
    given. -#}
{% macro _model_name_of(name) -%}
  {%- set by_alias = [] -%}
  {%- if execute and name -%}
    {%- for node in graph.nodes.values() if node.resource_type == 'model' -%}
      {%- if node.name == name -%}
        {{- return(name) -}}
      {%- endif -%}
      {%- if (node.alias or '') | lower == name | lower -%}
        {%- do by_alias.append(node.name) -%}
      {%- endif -%}
    {%- endfor -%}
  {%- endif -%}
  {{- return(by_alias[0] if by_alias | length == 1 else name) -}}
{%- endmacro %}

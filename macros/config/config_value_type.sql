{#- The type of a var's value, in words, for messages. -#}
{% macro _config_value_type(value) -%}
  {%- if value is none -%}
    {{- return('null') -}}
  {%- elif value is sameas true or value is sameas false -%}
    {{- return('boolean') -}}
  {%- elif value is integer -%}
    {{- return('integer') -}}
  {%- elif value is number -%}
    {{- return('number') -}}
  {%- elif value is string -%}
    {{- return('text') -}}
  {%- elif value is mapping -%}
    {{- return('mapping') -}}
  {%- elif value.year is defined -%}
    {{- return('date') -}}
  {%- elif value is iterable -%}
    {{- return('list') -}}
  {%- endif -%}
  {{- return('value') -}}
{%- endmacro %}

{#- A Spark SQL string literal for any text value (null stays null). -#}
{% macro _quote(value) -%}
  {%- if value is none -%}
    {{- return('null') -}}
  {%- endif -%}
  {%- set text = value | string -%}
  {{- return("'" ~ text.replace('\\', '\\\\').replace("'", "\\'") ~ "'") -}}
{%- endmacro %}

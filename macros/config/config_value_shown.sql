{#- A var's value as shown in a message: text as is (quoted when empty or asked), null
    as null, anything else as Jinja prints it. -#}
{% macro _config_value_shown(value, quote_text=false) -%}
  {%- if value is none -%}
    {{- return('null') -}}
  {%- elif value is string and (quote_text or value == '') -%}
    {{- return("'" ~ value ~ "'") -}}
  {%- elif value is sameas true or value is sameas false -%}
    {{- return(value | string | lower) -}}
  {%- endif -%}
  {{- return(value | string) -}}
{%- endmacro %}

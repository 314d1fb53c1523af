{#- A value tojson can write: timestamps as 'YYYY-MM-DD HH:MM:SS' text, mappings and lists
    converted item by item, strings, numbers, booleans and none as they are, anything else
    as its text. -#}
{% macro _plan_json_safe(value) -%}
  {%- if value is none or value is string or value is boolean or value is integer or value is float -%}
    {{- return(value) -}}
  {%- elif value is mapping -%}
    {%- set safe = {} -%}
    {%- for key, item in value.items() -%}
      {%- do safe.update({key | string: spark_incremental._plan_json_safe(item)}) -%}
    {%- endfor -%}
    {{- return(safe) -}}
  {%- elif value.strftime is defined -%}
    {{- return(spark_incremental._ts_text(value)) -}}
  {%- elif value is iterable -%}
    {%- set safe = [] -%}
    {%- for item in value -%}
      {%- do safe.append(spark_incremental._plan_json_safe(item)) -%}
    {%- endfor -%}
    {{- return(safe) -}}
  {%- endif -%}
  {{- return(value | string) -}}
{%- endmacro %}

{#- The md5 recorded as table property `key` of a relation (as the state view and the run
    table materializations record their compiled SQL's), read from dbt's listing of the
    schema (no statement); none when absent. -#}
{% macro _listed_md5(relation, key) -%}
  {%- set found = modules.re.search(modules.re.escape(key) ~ '=([0-9a-f]{32})', relation.information or '') -%}
  {{- return(found.group(1) if found else none) -}}
{%- endmacro %}

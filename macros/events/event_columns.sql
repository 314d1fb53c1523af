{#- The events table's column names, in table order (one metadata call). -#}
{% macro _event_columns(events) -%}
  {%- if not spark_incremental._can_query() -%}
    {{- return(['event_id']) -}}
  {%- endif -%}
  {%- set columns = adapter.get_columns_in_relation(events) | map(attribute='name') | list -%}
  {%- if 'event_id' not in columns | map('lower') | list -%}
    {%- do exceptions.raise_compiler_error(
        "spark_incremental: the events table " ~ events ~ " has no event_id column; columns: "
        ~ columns | join(', ')) -%}
  {%- endif -%}
  {{- return(columns) -}}
{%- endmacro %}

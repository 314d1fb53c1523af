{#- Query helpers that return plain Python values. -#}
{% macro _fetch_rows(sql) -%}
  {%- set result = run_query(sql) -%}
  {%- if result is none -%}
    {{- return([]) -}}
  {%- endif -%}
  {{- return(result.rows) -}}
{%- endmacro %}


{% macro _fetch_value(sql) -%}
  {%- set rows = spark_incremental._fetch_rows(sql) -%}
  {%- if rows | length == 0 -%}
    {{- return(none) -}}
  {%- endif -%}
  {{- return(rows[0][0]) -}}
{%- endmacro %}

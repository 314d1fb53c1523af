{#- The model's query shaped for an insert into a target with `target_columns`: target
    columns the query lacks are selected as null (on_schema_change ignore and
    append_new_columns); the query's extra columns are left to the writer's column list.
    The query as it is when it has every target column. -#}
{% macro _on_schema_change_fit_sql(sql, target_columns, query_columns) -%}
  {%- set have = query_columns | map(attribute=0) | map('lower') | list -%}
  {%- set known = target_columns | map(attribute=0) | map('lower') | list -%}
  {%- if known | reject('in', have) | list | length == 0 -%}
    {{- return(sql) -}}
  {%- endif -%}
  {%- set items = [] -%}
  {%- for name, data_type in target_columns -%}
    {%- if name | lower in have -%}
      {%- do items.append(adapter.quote(name)) -%}
    {%- else -%}
      {%- do items.append('cast(null as ' ~ data_type ~ ') as ' ~ adapter.quote(name)) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- for name, data_type in query_columns if name | lower not in known -%}
    {%- do items.append(adapter.quote(name)) -%}
  {%- endfor -%}
  {{- return('select\n        ' ~ items | join(',\n        ') ~ '\nfrom (\n' ~ sql ~ '\n) as si_fit') -}}
{%- endmacro %}

{#- The refresh plan log's columns, in table order: one row per planned operation,
    appended per invocation (partition batch_id = invocation_id), never rewritten. -#}
{% macro _refresh_plan_columns() -%}
  {{- return([
      ('model', 'string'),
      ('step', 'int'),
      ('operation', 'string'),
      ('condition', 'string'),
      ('reason', 'string'),
      ('change_tables', 'string'),
      ('change_types', 'string'),
      ('scopes', 'string'),
      ('invocation_id', 'string'),
      ('planned_at', 'timestamp'),
      ('batch_id', 'string'),
  ]) -}}
{%- endmacro %}


{#- Typed, empty select of the plan log's columns (the body of the plan model). -#}
{% macro _refresh_plan_empty_select() -%}
  {%- set columns = spark_incremental._refresh_plan_columns() -%}
select
  {%- for name, type in columns %}
    cast(null as {{ type }}) as {{ name }}{{ ',' if not loop.last }}
  {%- endfor %}
where false
{%- endmacro %}

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

{#- The manifest log's columns, in table order. The one definition used by the model,
    the DDL that creates the table when it is missing, and every writer. -#}
{% macro _manifest_columns() -%}
  {{- return([
      ('model', 'string'),
      ('record_type', 'string'),
      ('last_success', 'timestamp'),
      ('mutability_type', 'string'),
      ('last_refresh', 'timestamp'),
      ('high_water_mark', 'string'),
      ('high_water_mark_type', 'string'),
      ('state', 'string'),
      ('action', 'string'),
      ('invocation_id', 'string'),
      ('written_at', 'timestamp'),
      ('batch_id', 'string'),
  ]) -}}
{%- endmacro %}

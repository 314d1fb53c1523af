{#- SQL for a timestamp expression plus a whole number of days. -#}
{% macro _add_days(expression, days) -%}
  {{ expression }} + interval {{ days | int }} days
{%- endmacro %}

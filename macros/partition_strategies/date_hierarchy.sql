{#- The date hierarchy of a model's indicator or time column (AtScale's levels), finest
    first: [{level, column, expression}]. `column` is the partition column of that level:
    the column itself for the day level of a date column, else <column>_<level>, which
    the materialization adds to the model's rows. Timestamps also have an hour level. -#}
{% macro _date_hierarchy(column, data_type) -%}
  {%- set levels = [] -%}
  {%- if data_type.startswith('timestamp') -%}
    {%- do levels.append({'level': 'hour', 'column': column ~ '_hour', 'expression': "date_trunc('HOUR', " ~ column ~ ")"}) -%}
    {%- do levels.append({'level': 'day', 'column': column ~ '_day', 'expression': 'to_date(' ~ column ~ ')'}) -%}
  {%- else -%}
    {%- do levels.append({'level': 'day', 'column': column, 'expression': column}) -%}
  {%- endif -%}
  {%- do levels.append({'level': 'month', 'column': column ~ '_month', 'expression': "trunc(" ~ column ~ ", 'MM')"}) -%}
  {%- do levels.append({'level': 'year', 'column': column ~ '_year', 'expression': 'year(' ~ column ~ ')'}) -%}
  {{- return(levels) -}}
{%- endmacro %}

{#- Logs rows as a plain-text table: cells padded to their column's width and joined by
    ' | ', a rule under the first row (the header) and, with total_row, above the last
    (a total). Used by show_state and the plan preview. -#}
{% macro _log_table(rows, total_row=false) -%}
  {%- set widths = [] -%}
  {%- for i in range(rows[0] | length) -%}
    {%- do widths.append(rows | map(attribute=i) | map('string') | map('length') | max) -%}
  {%- endfor -%}
  {%- set rule = '-' * (widths | sum + 3 * (widths | length - 1)) -%}
  {%- for cells in rows -%}
    {%- if loop.last and total_row and not loop.first -%}
      {%- do log(rule, info=true) -%}
    {%- endif -%}
    {%- set padded = [] -%}
    {%- for cell in cells -%}
      {%- do padded.append((cell | string).ljust(widths[loop.index0])) -%}
    {%- endfor -%}
    {%- do log(padded | join(' | '), info=true) -%}
    {%- if loop.first -%}
      {%- do log(rule, info=true) -%}
    {%- endif -%}
  {%- endfor -%}
{%- endmacro %}

{#- Two changes described for one table, as one: the union of their scopes (none, the
    whole table, when either has none), the columns both read, and the narrowest type that
    covers both. The same type stays (each scope covers its own rows as the type says, so
    their union does); ADD_ROWS with its dirty variant is the dirty variant, REMOVE_ROWS
    with its dirty variant likewise; any other pair is MIXED_CHANGES, which covers adds,
    updates and removes together. `first` and `second`: changes as get_changes builds them.
    Returns {type, scope, columns}. -#}
{% macro _merged_change(first, second) -%}
  {%- set pair = [first.type, second.type] | sort -%}
  {%- if first.type == second.type -%}
    {%- set type = first.type -%}
  {%- elif pair == ['ADD_ROWS', 'ADD_ROWS_WITH_DIRTY_CONDITION'] -%}
    {%- set type = 'ADD_ROWS_WITH_DIRTY_CONDITION' -%}
  {%- elif pair == ['REMOVE_ROWS', 'REMOVE_ROWS_WITH_DIRTY_CONDITION'] -%}
    {%- set type = 'REMOVE_ROWS_WITH_DIRTY_CONDITION' -%}
  {%- else -%}
    {%- set type = 'MIXED_CHANGES' -%}
  {%- endif -%}
  {%- if first.scope is none or second.scope is none -%}
    {%- set scope = none -%}
  {%- else -%}
    {%- set scope = '(' ~ first.scope ~ ') or (' ~ second.scope ~ ')' -%}
  {%- endif -%}
  {%- set columns = first.columns + (second.columns | reject('in', first.columns) | list) -%}
  {{- return({'type': type, 'scope': scope, 'columns': columns}) -}}
{%- endmacro %}

{#- Rows of `source_sql` (the model's query, or its table) with one more boolean column,
    __si_match, true where any of the scopes holds. Each scope is evaluated with the rows
    aliased as its changed table, so a scope written against the table (`sales.date = ...`)
    reads the model's column of the same name; it is never rewritten. -#}
{% macro _scope_flagged_sql(source_sql, scopes, columns) -%}
  {%- set state = namespace(sql='(\n' ~ source_sql ~ '\n)') -%}
  {%- for scope in scopes -%}
    {%- set state.sql = '(select ' ~ scope.alias ~ '.*, coalesce((' ~ scope.scope ~ '), false) as __si_match_'
        ~ loop.index ~ ' from ' ~ state.sql ~ ' as ' ~ scope.alias ~ ')' -%}
  {%- endfor -%}
select
  {%- for column in columns %}
    {{ column }},
  {%- endfor %}
    {% for scope in scopes %}__si_match_{{ loop.index }}{{ ' or ' if not loop.last }}{% endfor %} as __si_match
from {{ state.sql }} as __si_flagged
{%- endmacro %}

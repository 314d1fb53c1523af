{#- Rows of `source_sql` (the model's query, or its table) with two more columns:
    __si_match, true where any of the scopes holds and false elsewhere (never null), and
    __si_in_scope, the same scopes as a where condition (null where a scope is null).
    Filter with __si_in_scope: a where clause drops null rows as it drops false ones, and
    Spark pushes the bare condition to the scan (partition pruning, parquet row-group
    statistics), which it cannot do through coalesce(..., false). Each scope is evaluated
    with the rows aliased as its changed table, so a scope written against the table
    (`sales.date = ...`) reads the model's column of the same name; it is never
    rewritten. within (optional): a predicate over the columns that every flagged row
    must also meet (a time-interval model's done intervals, _changes_within). -#}
{% macro _scope_flagged_sql(source_sql, scopes, columns, within=none) -%}
  {%- set state = namespace(sql='(\n' ~ source_sql ~ '\n)') -%}
  {%- for scope in scopes -%}
    {%- set state.sql = '(select ' ~ scope.alias ~ '.*, (' ~ scope.scope ~ ') as __si_scope_'
        ~ loop.index ~ ' from ' ~ state.sql ~ ' as ' ~ scope.alias ~ ')' -%}
  {%- endfor -%}
  {%- set in_scope -%}
    {% for scope in scopes %}__si_scope_{{ loop.index }}{{ ' or ' if not loop.last }}{% endfor %}
  {%- endset -%}
  {%- if within is not none -%}
    {%- set in_scope = '(' ~ in_scope ~ ') and (' ~ within ~ ')' -%}
  {%- endif -%}
select
  {%- for column in columns %}
    {{ column }},
  {%- endfor %}
    coalesce({{ in_scope }}, false) as __si_match,
    {{ in_scope }} as __si_in_scope
from {{ state.sql }} as __si_flagged
{%- endmacro %}

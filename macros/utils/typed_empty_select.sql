{#- A select of no row with the given columns, each a typed null: the body of a state
    model whose rows only hooks write (the manifest log, the refresh plan log).
    columns: a list of (name, Spark type) pairs. -#}
{% macro _typed_empty_select(columns) -%}
select
  {%- for name, type in columns %}
    cast(null as {{ type }}) as {{ name }}{{ ',' if not loop.last }}
  {%- endfor %}
where false
{%- endmacro %}

{#- The one rule for dbt's merge configs (merge_update_columns, merge_exclude_columns,
    incremental_predicates): they act on the rows a new row matches by unique_key, so each
    is allowed only on an upsert as dbt's merge does it, and refused, before any SQL, with
    what is allowed: without a unique_key, with a declared mutability (whose runs replace
    ranges and scopes, not matched keys), with incremental_strategy 'insert_overwrite'
    (which replaces partitions whole; dbt-spark ignores these configs there).
    key: the config's name; shown: 'key = value' as the messages print it. -#}
{% macro _managed_check_keyed_merge(prefix, key, shown, unique_key, declared, strategy) -%}
  {%- if unique_key | length == 0 -%}
    {%- do exceptions.raise_compiler_error(prefix ~ shown ~ " is set without a unique_key: it applies to the rows"
        ~ " a new row matches by key, and without a key none is matched. Allowed: " ~ key ~ " only with unique_key.") -%}
  {%- elif declared -%}
    {%- do exceptions.raise_compiler_error(prefix ~ shown ~ " is not allowed with a declared mutability: its runs"
        ~ " replace ranges and scopes, not the rows matched by key. Allowed: " ~ key ~ " only on a model without"
        ~ " mutability (an upsert by unique_key, dbt's merge).") -%}
  {%- elif strategy == 'insert_overwrite' -%}
    {%- do exceptions.raise_compiler_error(prefix ~ shown ~ " is not allowed with incremental_strategy ="
        ~ " 'insert_overwrite', which replaces partitions whole and matches no rows (dbt-spark ignores it there)."
        ~ " Allowed: " ~ key ~ " with incremental_strategy 'merge' (or unset).") -%}
  {%- endif -%}
{%- endmacro %}

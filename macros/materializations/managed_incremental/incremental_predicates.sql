{#- dbt's incremental_predicates on managed_incremental: conditions added to the match of
    an upsert by unique_key, as dbt-spark adds them to its MERGE condition, with
    DBT_INTERNAL_DEST naming the table's row and DBT_INTERNAL_SOURCE the query's
    (_managed_key_join). A target row they leave unmatched is kept, and the query's row
    with its key is inserted beside it, as dbt's MERGE does; a predicate on
    DBT_INTERNAL_DEST alone also bounds the upsert's search of the table for the keys.

    Checked before any SQL: none, a text or a list of texts; each a condition without
    `;`. Allowed only where dbt-spark reads them: an upsert by unique_key without a
    declared mutability (whose runs replace ranges and scopes), not incremental_strategy
    'insert_overwrite'. Returns the list ([] when unset). -#}
{% macro _managed_incremental_predicates(conf, prefix, unique_key, declared, strategy) -%}
  {%- set value = conf.get('incremental_predicates') -%}
  {%- if value is none or (value is string and value | trim == '') -%}
    {{- return([]) -}}
  {%- endif -%}
  {%- set predicates = [value] if value is string else value -%}
  {%- if predicates is not iterable or predicates is mapping -%}
    {%- do exceptions.raise_compiler_error(prefix ~ "incremental_predicates = " ~ value ~ " is not allowed: it must"
        ~ " be a condition or a list of conditions (SQL text).") -%}
  {%- endif -%}
  {%- for predicate in predicates -%}
    {%- if predicate is not string or predicate | trim == '' or ';' in predicate -%}
      {%- do exceptions.raise_compiler_error(prefix ~ "incremental_predicates entry " ~ predicate ~ " is not allowed:"
          ~ " each entry must be one SQL condition (text, no ';'), e.g."
          ~ " \"DBT_INTERNAL_DEST.ds >= date_sub(current_date(), 7)\".") -%}
    {%- endif -%}
  {%- endfor -%}
  {%- set shown = 'incremental_predicates = ' ~ predicates -%}
  {%- if unique_key | length == 0 -%}
    {%- do exceptions.raise_compiler_error(prefix ~ shown ~ " is set without a unique_key: they restrict which"
        ~ " rows of the table a new row matches, and without a key none is matched. Allowed: incremental_predicates"
        ~ " only with unique_key.") -%}
  {%- elif declared -%}
    {%- do exceptions.raise_compiler_error(prefix ~ shown ~ " is not allowed with a declared mutability: its runs"
        ~ " replace ranges and scopes, not the rows matched by key. Allowed: incremental_predicates only on a model"
        ~ " without mutability (an upsert by unique_key, dbt's merge).") -%}
  {%- elif strategy == 'insert_overwrite' -%}
    {%- do exceptions.raise_compiler_error(prefix ~ shown ~ " is not allowed with incremental_strategy ="
        ~ " 'insert_overwrite', which replaces partitions whole and matches no rows (dbt-spark ignores them"
        ~ " there). Allowed: incremental_predicates with incremental_strategy 'merge' (or unset).") -%}
  {%- endif -%}
  {{- return(predicates | list) -}}
{%- endmacro %}

{#- dbt's incremental_predicates on managed_incremental: conditions added to the match of
    an upsert by unique_key, as dbt-spark adds them to its MERGE condition, with
    DBT_INTERNAL_DEST naming the table's row and DBT_INTERNAL_SOURCE the query's
    (_managed_key_join). A target row they leave unmatched is kept, and the query's row
    with its key is inserted beside it, as dbt's MERGE does; a predicate on
    DBT_INTERNAL_DEST alone also bounds the upsert's search of the table for the keys.

    Checked before any SQL: none, a text or a list of texts; each a condition without
    `;`. Allowed only where dbt-spark reads them, an upsert by unique_key
    (_managed_check_keyed_merge). Returns the list ([] when unset). -#}
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
  {%- do spark_incremental._managed_check_keyed_merge(prefix, 'incremental_predicates', shown, unique_key,
      declared, strategy) -%}
  {{- return(predicates | list) -}}
{%- endmacro %}

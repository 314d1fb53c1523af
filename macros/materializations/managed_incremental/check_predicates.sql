{#- Before an upsert writes anything (its stage included): Spark's analyzer reads the
    match condition (_managed_key_join, the predicates as written) over the table on both
    sides, as the stage has the table's columns; nothing is read (`where false`, under
    explain). A predicate Spark cannot resolve (a column the table lacks, an alias other
    than DBT_INTERNAL_DEST / DBT_INTERNAL_SOURCE, an ambiguous or non-boolean one) stops
    the run with Spark's reason and the table's columns; one it cannot parse stops it with
    Spark's parse error. One statement, only for a model with incremental_predicates. -#}
{% macro _managed_check_predicates(cfg, target) -%}
  {%- set probe -%}
explain select 1
from {{ target }} as DBT_INTERNAL_DEST
inner join {{ target }} as DBT_INTERNAL_SOURCE
    on {{ spark_incremental._managed_key_join(cfg) }}
where false
  {%- endset -%}
  {%- set text = spark_incremental._fetch_rows(probe) | map(attribute=0) | join('\n') -%}
  {#- Spark 4 answers 'Error occurred during query planning: ...'; Spark 3.5 puts the
      exception where the physical plan would be -#}
  {%- set lines = text.split('\n') -%}
  {%- if 'Error occurred during query planning' in lines[0]
        or (lines | length > 1 and lines[1].startswith('org.apache.spark') and 'Exception: ' in lines[1]) -%}
    {%- do exceptions.raise_compiler_error("spark_incremental: model '" ~ cfg.model ~ "': incremental_predicates = "
        ~ cfg.incremental_predicates ~ " cannot be applied: " ~ spark_incremental._spark_error_line(text)
        ~ ". Each must be a condition on DBT_INTERNAL_DEST (the table's row) and DBT_INTERNAL_SOURCE (the"
        ~ " query's row), whose columns are the table's: "
        ~ spark_incremental._relation_column_names(target) | join(', ') ~ ". Nothing was written.") -%}
  {%- endif -%}
{%- endmacro %}

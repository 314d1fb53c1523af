{#- The rows an upsert writes, from the staged query rows: a row whose unique_key matches
    a target row (_managed_key_join, among those key_bound admits: the rows the upsert
    replaces) takes the kept columns from it, as a MERGE updating only the other columns
    would; a row matching none is the query's row. A row matching two target rows gives
    two rows, as a MERGE updates each. kept: from _managed_merge_kept, not empty;
    key_bound: a predicate over DBT_INTERNAL_DEST. -#}
{% macro _managed_merged_rows_sql(cfg, stage, target, columns, kept, key_bound) -%}
  {%- set selected = [] -%}
  {%- for name, data_type in columns -%}
    {%- set quoted = adapter.quote(name) -%}
    {%- do selected.append(('case when DBT_INTERNAL_DEST.__si_matched then DBT_INTERNAL_DEST.' ~ quoted
        ~ ' else DBT_INTERNAL_SOURCE.' ~ quoted ~ ' end as ' ~ quoted)
        if name | lower in kept else 'DBT_INTERNAL_SOURCE.' ~ quoted) -%}
  {%- endfor -%}
    select
        {{ selected | join(',\n        ') }}
    from {{ stage }} as DBT_INTERNAL_SOURCE
    left join (
        select
            DBT_INTERNAL_DEST.*,
            true as __si_matched
        from {{ target }} as DBT_INTERNAL_DEST
        where {{ key_bound }}
    ) as DBT_INTERNAL_DEST
        on {{ spark_incremental._managed_key_join(cfg) }}
{%- endmacro %}

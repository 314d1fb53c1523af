{#- Replace, in `target`, the rows flagged by `flagged_sql` (a query over the target that
    returns its columns plus a boolean __si_match) with the rows of `new_rows_sql` (a query
    returning the target's columns; none = only remove). Parquet has no DELETE or MERGE, so
    this uses the write layer's partition rewrite (apply_table.sql): one table <name>__si_apply
    gets the new content of every touched partition (a partition holding a flagged row or
    a new row; the whole table when it is not partitioned): its rows that are not
    flagged, plus the new rows; the flagged rows ride along as marker rows (never
    written), so a partition left with no rows is dropped. Then only those partitions are
    overwritten. The target is never read and overwritten in one statement, and a
    partition's rows outside the flagged set stay, whatever the partition's grain (a
    daily batch in a monthly partition). A run killed during the overwrite is finished by
    the next run (_managed_recover re-applies <name>__si_apply).
    target_desc: _managed_describe(target). match_sql (optional): a plain predicate over
    flagged_sql's columns that holds exactly where __si_match is true (an interval batch's
    range; a change replay's __si_in_scope, _scope_flagged_sql); the touched partitions
    are then found with it, so Spark pushes it to the target's scan (partition and
    row-group pruning), which it cannot do with the flag.
    Only the touched partitions of the target are read for the old rows: they are
    filtered with array_contains(<the touched set, collected by a scalar subquery>, <the
    row's partition values as a struct>). The filter reads only partition columns, so
    Spark evaluates it per partition once the subquery has run and lists only the touched
    ones; struct equality matches null partition values too. A semi join with the touched
    set would rely on dynamic partition pruning, which with adaptive execution fell back
    to reading every partition in some plans (a touched set from the target alone). Returns
    {removed, inserted, partitions (count, none when unpartitioned), detail, cleanup: [the
    apply table, to drop once the state is recorded]}. -#}
{% macro _replace_rows(target, flagged_sql, new_rows_sql, target_desc, match_sql=none) -%}
  {%- set columns = target_desc.columns -%}
  {%- set partition_columns = spark_incremental._managed_partition_columns(target_desc) -%}
  {%- set partitions = partition_columns | map(attribute=0) | list -%}
  {%- set column_list = spark_incremental._managed_column_list(columns) -%}
  {%- set content_sql -%}
    with

    flagged as (
        {{ flagged_sql }}
    ),

    new_rows as (
        select
            {{ column_list }}
        from (
            {{ new_rows_sql or ('select * from ' ~ target ~ ' where false') }}
        ) as si_new
    ),

    {%- if partitions | length > 0 %}

    touched as (
        select distinct {{ partitions | join(', ') }} from flagged where {{ match_sql or '__si_match' }}
        union
        select distinct {{ partitions | join(', ') }} from new_rows
    ),

    old_rows as (
        select flagged.*
        from flagged
        where array_contains(
            (select collect_set({{ spark_incremental._partition_struct(partitions, none) }}) from touched),
            {{ spark_incremental._partition_struct(partitions, 'flagged') }}
        )
    ),
    {%- else %}

    old_rows as (
        select * from flagged
    ),
    {%- endif %}

    final as (
        select
            {{ column_list }},
            __si_match as __si_marker,
            case when __si_match then 'removed' else 'kept' end as __si_origin
        from old_rows
        union all
        select
            {{ column_list }},
            false as __si_marker,
            'new' as __si_origin
        from new_rows
    )

    select * from final
  {%- endset -%}
  {%- set apply = spark_incremental._managed_apply_build(target, content_sql) -%}
  {%- set summary_sql -%}
    select
        {%- if partitions | length > 0 %}
        {{ spark_incremental._managed_partition_text(partition_columns, none) }},
        {%- endif %}
        sum(case when __si_origin = 'removed' then 1 else 0 end) as removed,
        sum(case when __si_origin = 'new' then 1 else 0 end) as inserted,
        max(case when __si_marker then 0 else 1 end) as has_rows
    from {{ apply }}
    {%- if partitions | length > 0 %}
    group by {{ partitions | join(', ') }}
    {%- endif %}
  {%- endset -%}
  {%- set summary = spark_incremental._fetch_rows(summary_sql) -%}
  {%- set result = {'removed': 0, 'inserted': 0, 'partitions': none, 'detail': '', 'cleanup': [apply]} -%}
  {%- set maybe_empty = [] -%}
  {%- for row in summary if row[-3] is not none -%}
    {%- do result.update({'removed': result.removed + row[-3] | int, 'inserted': result.inserted + row[-2] | int}) -%}
    {%- if partitions | length > 0 and row[-1] | int == 0 -%}
      {%- do maybe_empty.append(row[:partitions | length] | list) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- if result.removed + result.inserted == 0 -%}
    {{- return(result) -}}
  {%- endif -%}
  {%- if partitions | length > 0 -%}
    {%- do result.update({'partitions': summary | length}) -%}
  {%- endif -%}
  {%- set applied = spark_incremental._managed_apply_overwrite(target, apply, target_desc, maybe_empty) -%}
  {%- do result.update({'detail': applied.detail}) -%}
  {{- return(result) -}}
{%- endmacro %}

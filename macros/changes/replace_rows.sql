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
    Partitioned: one query first finds the touched partitions, with the rows removed from
    and added to each. Nothing touched: nothing is written. Otherwise the old rows are read
    with a literal predicate on those partitions (_managed_partition_predicate, as the
    upserts do), which Spark resolves before it lists a file, so it lists and reads only
    the touched partitions. A filter computed at run time (a scalar subquery, or dynamic
    partition pruning from a join) reads only those too, but Spark first lists the files
    of every partition to apply it: a listing job with one task per partition, which grew
    with the table's history. Returns {removed, inserted, partitions (count, none when
    unpartitioned), detail, cleanup: [the apply table, to drop once the state is
    recorded]}. -#}
{% macro _replace_rows(target, flagged_sql, new_rows_sql, target_desc, match_sql=none) -%}
  {%- set columns = target_desc.columns -%}
  {%- set partition_columns = spark_incremental._managed_partition_columns(target_desc) -%}
  {%- set partitions = partition_columns | map(attribute=0) | list -%}
  {%- set column_list = spark_incremental._managed_column_list(columns) -%}
  {%- set inputs_sql -%}
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
  {%- endset -%}
  {%- set result = {'removed': 0, 'inserted': 0, 'partitions': none, 'detail': '', 'cleanup': []} -%}
  {%- set touched = [] -%}
  {%- set maybe_empty = [] -%}
  {%- if partitions | length > 0 -%}
    {%- set touched_sql -%}
    with

    {{ inputs_sql }}

    changed as (
        select
            {{ spark_incremental._managed_partition_text(partition_columns, none) }},
            1 as removed,
            0 as inserted
        from flagged
        where {{ match_sql or '__si_match' }}
        union all
        select
            {{ spark_incremental._managed_partition_text(partition_columns, none) }},
            0 as removed,
            1 as inserted
        from new_rows
    ),

    final as (
        select
            {{ partitions | join(', ') }},
            sum(removed) as removed,
            sum(inserted) as inserted
        from changed
        group by {{ partitions | join(', ') }}
    )

    select * from final
    {%- endset -%}
    {%- for row in spark_incremental._fetch_rows(touched_sql) -%}
      {%- set values = row[:partitions | length] | list -%}
      {%- do touched.append(values) -%}
      {%- do result.update({'removed': result.removed + row[-2] | int, 'inserted': result.inserted + row[-1] | int}) -%}
      {%- if row[-1] | int == 0 -%}
        {#- rows only leave this partition: it may end up empty -#}
        {%- do maybe_empty.append(values) -%}
      {%- endif -%}
    {%- endfor -%}
    {%- if touched | length == 0 -%}
      {{- return(result) -}}
    {%- endif -%}
  {%- endif -%}
  {%- set content_sql -%}
    with

    {{ inputs_sql }}

    old_rows as (
        select *
        from flagged
        {%- if partitions | length > 0 %}
        where {{ spark_incremental._managed_partition_predicate(partition_columns, touched, none) }}
        {%- endif %}
    ),

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
  {%- do result.update({'cleanup': [apply]}) -%}
  {%- if partitions | length == 0 -%}
    {%- set summary_sql -%}
    select
        sum(case when __si_origin = 'removed' then 1 else 0 end) as removed,
        sum(case when __si_origin = 'new' then 1 else 0 end) as inserted
    from {{ apply }}
    {%- endset -%}
    {%- set summary = spark_incremental._fetch_rows(summary_sql) -%}
    {%- do result.update({'removed': (summary[0][0] or 0) | int, 'inserted': (summary[0][1] or 0) | int}) -%}
    {%- if result.removed + result.inserted == 0 -%}
      {{- return(result) -}}
    {%- endif -%}
  {%- else -%}
    {%- do result.update({'partitions': touched | length}) -%}
  {%- endif -%}
  {%- set applied = spark_incremental._managed_apply_overwrite(target, apply, target_desc, maybe_empty) -%}
  {%- do result.update({'detail': applied.detail}) -%}
  {{- return(result) -}}
{%- endmacro %}

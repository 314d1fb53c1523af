{#- The write paths of managed_incremental. Each returns
    {rows: rows written this run, partitions: partitions replaced (or none), max: largest
    along value among the written rows (text) or none, detail: extra words for the log}.

    build          <name>__si_new beside the target, then swap (delta/iceberg: create or replace)
    append         insert into (no unique_key, nothing to replace)
    insert         insert into, the query as it is (dbt's incremental append)
    replace        parquet/orc: stage, then overwrite only the affected partitions
                   (the whole table when unpartitioned); delta/iceberg/hudi: delete + merge
    overwrite      incremental_strategy 'insert_overwrite': replace as above, keeping no
                   row of the affected partitions (those the new rows fall in) -#}
{% macro _managed_execute(plan, cfg, target, existing, sql, target_desc) -%}
  {%- if plan.action == 'upsert' and cfg.get('incremental_predicates') -%}
    {%- do spark_incremental._managed_check_predicates(cfg, target) -%}
  {%- endif -%}
  {%- if plan.action == 'skip' -%}
    {{- return({'rows': none, 'partitions': none, 'max': none, 'detail': ''}) -}}
  {%- elif plan.action == 'build' -%}
    {{- return(spark_incremental._managed_build(plan, cfg, target, existing, sql)) -}}
  {%- elif plan.action == 'apply_changes' -%}
    {{- return(spark_incremental._changes_write(plan, cfg, target, sql, target_desc)) -}}
  {%- elif plan.action == 'intervals' -%}
    {{- return(spark_incremental._intervals_write(plan, cfg, target, existing, sql, target_desc)) -}}
  {%- elif plan.action == 'insert' -%}
    {{- return(spark_incremental._managed_insert(target, sql, target_desc)) -}}
  {%- elif plan.action == 'append' and not plan.by_key -%}
    {{- return(spark_incremental._managed_append(plan, cfg, target, sql, target_desc)) -}}
  {%- elif cfg.file_format in spark_incremental._managed_table_formats() -%}
    {{- return(spark_incremental._managed_merge(plan, cfg, target, sql, target_desc)) -}}
  {%- endif -%}
  {{- return(spark_incremental._managed_replace(plan, cfg, target, sql, target_desc)) -}}
{%- endmacro %}


{#- The model query limited to the plan's window on the along column. -#}
{% macro _managed_windowed_sql(plan, cfg, sql) -%}
  {%- set filter = spark_incremental._along_window_sql(cfg.along, plan.window, cfg.along_type) if cfg.along else 'true' -%}
select * from (
{{ sql }}
) as si_source
where {{ filter }}
{%- endmacro %}


{#- count(*) and max(along) (as text) of a relation, optionally filtered. -#}
{% macro _managed_stats(relation, cfg, where='true', extra=[]) -%}
  {%- set sql -%}
    select
        count(*) as row_count,
        {{ 'cast(max(' ~ cfg.along ~ ') as string)' if cfg.along else 'cast(null as string)' }} as max_along
        {%- for expression in extra %},
        {{ expression }}
        {%- endfor %}
    from {{ relation }}
    where {{ where }}
  {%- endset -%}
  {%- set row = spark_incremental._fetch_rows(sql)[0] -%}
  {{- return(row) -}}
{%- endmacro %}


{#- ------------------------------------------------------------------ build -#}
{% macro _managed_build(plan, cfg, target, existing, sql) -%}
  {%- set body = spark_incremental._managed_windowed_sql(plan, cfg, sql) -%}
  {%- if plan.get('empty') -%}
    {#- a model fed by the events window, forgotten by _managed_rebuild: its query holds
        one window only, so the table starts empty and is backfilled from start_date -#}
    {%- set body = 'select * from (\n' ~ body ~ '\n) as si_forgotten where false' -%}
  {%- endif -%}
  {%- if cfg.file_format in ['delta', 'iceberg'] -%}
    {#- one atomic statement on table formats -#}
    {%- if existing is not none and existing.is_view -%}
      {%- do adapter.drop_relation(existing) -%}
    {%- endif -%}
    {%- do adapter.execute(spark_incremental._managed_create_sql(target, body, cfg.file_format, replace=true, partition_by=cfg.partition_by), fetch=false) -%}
    {%- set stats = spark_incremental._managed_stats(target, cfg) -%}
    {{- return({'rows': stats[0], 'partitions': none, 'max': stats[1], 'detail': ''}) -}}
  {%- endif -%}
  {%- set new = spark_incremental._managed_side_tables(target).new -%}
  {#- no leftovers here: _managed_recover ran first -#}
  {%- do adapter.execute(spark_incremental._managed_create_sql(new, body, cfg.file_format, partition_by=cfg.partition_by), fetch=false) -%}
  {%- set stats = spark_incremental._managed_stats(new, cfg) -%}
  {%- do spark_incremental._swap_in(target, new, existing) -%}
  {{- return({'rows': stats[0], 'partitions': none, 'max': stats[1], 'detail': ''}) -}}
{%- endmacro %}


{#- create table <relation> with the model's layout (file_format, partition_by,
    clustered_by, options, comment, tblproperties) as <body>. `using <file_format>` is always
    written (the validated format, parquet by default): without it Spark 3.5 creates a Hive
    serde table (spark.sql.legacy.createHiveTableByDefault), Spark 4 a parquet one. A
    partitioned parquet / orc table also gets partitionOverwriteMode = dynamic among its
    options (_dynamic_overwrite_options), so its first upsert sets nothing.
    partition_by: a list of columns (an empty list: not partitioned), or none for the
    model's config. The one CTAS of the write layer: builds, rebuilds and the copy of a
    forward-only migration (which passes the table's own partition columns). -#}
{% macro _managed_create_sql(relation, body, file_format, replace=false, partition_by=none) -%}
  {%- set partitions = (config.get('partition_by') or []) if partition_by is none else partition_by -%}
  {%- set partitions = [partitions] if partitions is string else partitions -%}
create {{ 'or replace ' if replace }}table {{ relation }}
  using {{ file_format }}
  {{ options_clause() if file_format in spark_incremental._managed_table_formats()
     else spark_incremental._dynamic_overwrite_options(partitions | length > 0, config.get('options')) }}
  {{ ('partitioned by (' ~ partitions | join(', ') ~ ')') if partitions | length > 0 }}
  {{ clustered_cols(label="clustered by") }}
  {{ comment_clause() }}
  {{ tblproperties_clause() }}
as
{{ body }}
{%- endmacro %}


{#- Rows past the high-water mark, appended with one insert. The plan checked first that
    the target holds no rows past the mark (else it replaces that range instead). -#}
{% macro _managed_append(plan, cfg, target, sql, target_desc) -%}
  {%- do spark_incremental._managed_insert_rows(target, spark_incremental._managed_windowed_sql(plan, cfg, sql), target_desc) -%}
  {%- set lower_only = {'lower': plan.window.lower, 'lower_op': plan.window.lower_op, 'upper': none} -%}
  {%- set stats = spark_incremental._managed_stats(target, cfg,
      spark_incremental._along_window_sql(cfg.along, lower_only, cfg.along_type)) -%}
  {{- return({'rows': stats[0], 'partitions': none, 'max': stats[1], 'detail': ''}) -}}
{%- endmacro %}


{#- The query's rows, appended with one insert (no window, no key: the model's SQL
    filters with is_incremental(), as in dbt). Rows written = the target's count after
    minus before (two cheap counts; the query runs once). -#}
{% macro _managed_insert(target, sql, target_desc) -%}
  {%- set count_sql = 'select count(*) from ' ~ target -%}
  {%- set before = spark_incremental._fetch_rows(count_sql)[0][0] -%}
  {%- do spark_incremental._managed_insert_rows(target, sql, target_desc) -%}
  {%- set after = spark_incremental._fetch_rows(count_sql)[0][0] -%}
  {{- return({'rows': after - before, 'partitions': none, 'max': none, 'detail': ''}) -}}
{%- endmacro %}


{#- insert into the target the rows of `body`, its columns matched by name (the one
    insert of the append and insert paths; target_desc may come from dbt's listing, which
    another run's rebuild can have reordered since), then the after_write test hook. -#}
{% macro _managed_insert_rows(target, body, target_desc) -%}
  {%- set insert_sql -%}
insert into table {{ target }} by name
select
        {{ spark_incremental._managed_column_list(target_desc.columns) }}
from (
{{ body }}
) as si_rows
  {%- endset -%}
  {%- do adapter.execute(insert_sql, fetch=false) -%}
  {%- do spark_incremental._managed_fault('after_write') -%}
{%- endmacro %}


{#- Parquet / orc, no MERGE and no DELETE:
    1. stage the new rows in <name>__si_stage (the query runs once);
    2. find the affected partitions: those the new rows land in, those holding target
       rows in the replaced along range, and those holding target rows with a unique_key
       among the new rows (optionally only where upsert_date_key >= the new rows' min
       minus upsert_lookback_days), so rows can move between partitions;
    3. write (target rows of those partitions not replaced) + (new rows) + one marker row
       per affected partition into <name>__si_apply (target untouched so far);
    4. insert overwrite only those partitions from <name>__si_apply (dynamic partition
       overwrite), drop the affected partitions left empty;
    5. drop the staging tables after the state is recorded.
    An overwrite (incremental_strategy 'insert_overwrite') keeps no target row of the
    affected partitions, which are then only those the new rows land in: an empty query
    replaces nothing, or, unpartitioned, empties the table (as dbt-spark's).
    If the run dies in step 4, <name>__si_apply still holds the full new content of the
    affected partitions, and the next run re-applies it first (_managed_recover). An
    unpartitioned target is handled the same way as one partition: the whole table. -#}
{% macro _managed_replace(plan, cfg, target, sql, target_desc) -%}
  {%- set columns = target_desc.columns -%}
  {#- the aliases of dbt's MERGE, which incremental_predicates name -#}
  {%- set dest, source = 'DBT_INTERNAL_DEST', 'DBT_INTERNAL_SOURCE' -%}
  {#- the columns a matched row keeps (merge_update_columns / merge_exclude_columns),
      checked against the table before anything is written -#}
  {%- set kept_columns = spark_incremental._managed_merge_kept(cfg, columns) if plan.by_key else [] -%}
  {%- set partition_columns = spark_incremental._managed_partition_columns(target_desc) -%}
  {%- set body = spark_incremental._managed_windowed_sql(plan, cfg, sql) -%}

  {#- 1. stage (no leftovers here: _managed_recover ran first) -#}
  {%- set stage = spark_incremental._managed_stage(target, columns, body) -%}
  {#- row count and max(along) of the new rows: they come with the affected partitions
      below, in the same query. A query of their own only when there is no such query
      (unpartitioned target) or when upsert_date_key bounds the search for existing keys:
      the bound is then a literal, which Spark resolves before it lists a file of the
      target (partition pruning on a partition column, row-group statistics on another).
      A bound computed in the query (a scalar subquery of the stage) reads as few rows,
      but Spark lists every partition of the target before it applies such a filter: a
      listing job with one task per partition, which grew with the table's history -#}
  {%- set bounded = plan.by_key and cfg.upsert_date_key -%}
  {%- set stats = none -%}
  {%- if partition_columns | length == 0 or bounded -%}
    {#- the bound as a date's text: the new rows' earliest date, minus the lookback -#}
    {%- set extra = [spark_incremental._managed_key_bound_stat(cfg)] if bounded else [] -%}
    {%- set stats = spark_incremental._managed_stats(stage, cfg, 'true', extra) | list -%}
    {%- if stats[0] == 0 and plan.replace_lower is none and plan.action != 'overwrite' -%}
      {%- do adapter.drop_relation(stage) -%}
      {{- return({'rows': 0, 'partitions': none, 'max': none, 'detail': '', 'nothing': true}) -}}
    {%- endif -%}
  {%- endif -%}

  {#- which target rows are replaced -#}
  {%- set replaced = [] -%}
  {%- if plan.replace_lower is not none -%}
    {%- do replaced.append('coalesce(' ~ spark_incremental._along_window_sql(cfg.along,
        {'lower': plan.replace_lower, 'lower_op': plan.replace_lower_op, 'upper': none}, cfg.along_type, dest) ~ ', false)') -%}
  {%- endif -%}
  {%- set key_bound = spark_incremental._managed_key_bound(cfg, columns, stats[2]) if bounded else 'true' -%}
  {%- set key_join = spark_incremental._managed_key_join(cfg) if plan.by_key else none -%}
  {#- the rows written: the staged ones, or, with merge_update_columns /
      merge_exclude_columns, each taking its kept columns from the target row it matches -#}
  {%- set new_rows_sql = spark_incremental._managed_merged_rows_sql(cfg, stage, target, columns, kept_columns,
      key_bound) if kept_columns else 'select * from ' ~ stage -%}

  {#- 2. affected partitions, each flagged when new rows land in it (those cannot end
      up empty; the others may); one aggregation, plus the new rows' totals -#}
  {%- set affected = [] -%}
  {%- set maybe_empty = [] -%}
  {%- if partition_columns | length > 0 -%}
    {%- set partition_names = partition_columns | map(attribute=0) | join(', ') -%}
    {%- set affected_sql -%}
    with

    touched as (
        select {{ spark_incremental._managed_partition_text(partition_columns, none) }}, 1 as gets_rows
        from (
            {{ new_rows_sql }}
        ) as si_new
        {%- if replaced %}
        union all
        select {{ spark_incremental._managed_partition_text(partition_columns, dest) }}, 0 as gets_rows
        from {{ target }} as {{ dest }}
        where {{ replaced | join(' or ') }}
        {%- endif %}
        {%- if key_join %}
        union all
        select {{ spark_incremental._managed_partition_text(partition_columns, dest) }}, 0 as gets_rows
        from {{ target }} as {{ dest }}
        left semi join {{ stage }} as {{ source }}
            on {{ key_join }}
        where {{ key_bound }}
        {%- endif %}
    ),

    partitions as (
        select
            {{ partition_names }},
            max(gets_rows) as gets_rows,
            cast(null as bigint) as row_count,
            cast(null as string) as max_along
        from touched
        group by {{ partition_names }}
    ),

    totals as (
        select
            {%- for name, data_type in partition_columns %}
            cast(null as string) as {{ name }},
            {%- endfor %}
            cast(null as int) as gets_rows,
            count(*) as row_count,
            {{ 'cast(max(' ~ cfg.along ~ ') as string)' if cfg.along else 'cast(null as string)' }} as max_along
        from {{ stage }}
    ),

    final as (
        select * from partitions
        {%- if stats is none %}
        union all
        select * from totals
        {%- endif %}
    )

    select * from final
    {%- endset -%}
    {%- set width = partition_columns | length -%}
    {%- set found = {'stats': stats} -%}
    {%- for row in spark_incremental._fetch_rows(affected_sql) -%}
      {%- if row[width + 1] is not none -%}
        {%- if found.stats is none -%}
          {%- do found.update({'stats': [row[width + 1], row[width + 2]]}) -%}
        {%- endif -%}
      {%- else -%}
        {%- set values = [] -%}
        {%- for name, data_type in partition_columns -%}
          {%- do values.append(row[loop.index0]) -%}
        {%- endfor -%}
        {%- do affected.append(values) -%}
        {%- if row[width] == 0 -%}
          {%- do maybe_empty.append(values) -%}
        {%- endif -%}
      {%- endif -%}
    {%- endfor -%}
    {#- for the invocation: the partitions this run rewrites (the quarantine reads only these) -#}
    {%- do spark_incremental._run_cache('rewritten_partitions').update({target | string: affected}) -%}
    {%- set stats = found.stats -%}
    {%- if affected | length == 0 -%}
      {%- do adapter.drop_relation(stage) -%}
      {{- return({'rows': 0, 'partitions': none, 'max': stats[1], 'detail': '', 'nothing': true}) -}}
    {%- endif -%}
  {%- endif -%}

  {#- 3. the new content of the affected partitions -#}
  {%- set content_sql -%}
with

new_rows as (
    select
        {{ spark_incremental._managed_column_list(columns) }}
    from (
        {{ new_rows_sql }}
    ) as si_new
),

kept as (
    select
        {{ spark_incremental._managed_column_list(columns, dest) }}
    from {{ target }} as {{ dest }}
    {%- if key_join %}
    -- the rows a new row matches (_managed_key_join), on the query's own values (a kept
    -- column of the new row may hold the table's), within the search's bound
    left anti join {{ stage }} as {{ source }}
        on {{ key_join }} and {{ key_bound }}
    {%- endif %}
    where
        {{ spark_incremental._managed_partition_predicate(partition_columns, affected, dest) if partition_columns else 'true' }}
        {%- if replaced %}
        and not ({{ replaced | join(' or ') }})
        {%- endif %}
        {%- if plan.action == 'overwrite' %}
        -- insert_overwrite: the new rows replace their partitions whole
        and false
        {%- endif %}
),

{%- if partition_columns %}

markers as (
    {{ spark_incremental._managed_marker_sql(columns, partition_columns, affected) }}
),
{%- endif %}

final as (
    select *, false as __si_marker from kept
    union all
    select *, false as __si_marker from new_rows
    {%- if partition_columns %}
    union all
    select * from markers
    {%- endif %}
)

select * from final
  {%- endset -%}
  {%- set apply = spark_incremental._managed_apply_build(target, content_sql) -%}

  {#- 4. overwrite -#}
  {%- set applied = spark_incremental._managed_apply_overwrite(target, apply, target_desc, maybe_empty) -%}
  {{- return({'rows': stats[0], 'partitions': affected | length if partition_columns else none, 'max': stats[1],
              'detail': applied.detail, 'cleanup': [apply, stage]}) -}}
{%- endmacro %}


{#- delta / iceberg / hudi (untested here: no table-format jars in the test setup):
    delete the replaced along range (an overwrite: the new rows' partitions), then MERGE
    on unique_key (or insert). Each
    statement is atomic on these formats; a run that dies between them is repaired by
    the next run, which replaces the same range again (the state is written last). -#}
{% macro _managed_merge(plan, cfg, target, sql, target_desc) -%}
  {%- set columns = target_desc.columns -%}
  {%- set kept_columns = spark_incremental._managed_merge_kept(cfg, columns) if plan.by_key else [] -%}
  {%- set body = spark_incremental._managed_windowed_sql(plan, cfg, sql) -%}
  {%- set stage = spark_incremental._managed_stage(target, columns, body) -%}
  {%- set bounded = plan.by_key and cfg.upsert_date_key -%}
  {%- set stats = spark_incremental._managed_stats(stage, cfg, 'true',
      [spark_incremental._managed_key_bound_stat(cfg)] if bounded else []) -%}
  {%- if plan.replace_lower is not none -%}
    {%- do adapter.execute('delete from ' ~ target ~ ' where ' ~ spark_incremental._along_window_sql(cfg.along,
        {'lower': plan.replace_lower, 'lower_op': plan.replace_lower_op, 'upper': none}, cfg.along_type), fetch=false) -%}
  {%- elif plan.action == 'overwrite' -%}
    {#- insert_overwrite: the partitions of the new rows (all rows when unpartitioned) -#}
    {%- set names = target_desc.partition_by | join(', ') -%}
    {%- do adapter.execute('delete from ' ~ target ~ ((' where (' ~ names ~ ') in (select distinct ' ~ names
        ~ ' from ' ~ stage ~ ')') if names else ''), fetch=false) -%}
  {%- endif -%}
  {%- if plan.by_key -%}
    {%- set merge_sql -%}
merge into {{ target }} as DBT_INTERNAL_DEST
using {{ stage }} as DBT_INTERNAL_SOURCE
on {{ spark_incremental._managed_key_join(cfg) }}
{%- if bounded %}
    and {{ spark_incremental._managed_key_bound(cfg, columns, stats[2]) }}
{%- endif %}
{%- if kept_columns %}
when matched then update set
    {%- for name, data_type in columns if name | lower not in kept_columns %}
    DBT_INTERNAL_DEST.{{ adapter.quote(name) }} = DBT_INTERNAL_SOURCE.{{ adapter.quote(name) }}{{ ',' if not loop.last }}
    {%- endfor %}
{%- else %}
when matched then update set *
{%- endif %}
when not matched then insert *
    {%- endset -%}
    {%- do adapter.execute(merge_sql, fetch=false) -%}
  {%- else -%}
    {%- do adapter.execute('insert into ' ~ target ~ '\nselect\n        ' ~ spark_incremental._managed_column_list(columns)
        ~ '\nfrom ' ~ stage, fetch=false) -%}
  {%- endif -%}
  {{- return({'rows': stats[0], 'partitions': none, 'max': stats[1], 'detail': 'merged', 'cleanup': [stage]}) -}}
{%- endmacro %}

{#- The write layer's partition rewrite, used by every feature that changes rows of a
    parquet / orc table in place (upserts, change replays, interval batches): the feature
    builds the new content of the partitions it touches; only these macros write it.

    0. _managed_stage (optional): <name>__si_stage, the model query's rows, computed once,
       for features that must look at the new rows before they build the content.

    1. _managed_apply_build: <name>__si_apply, a table of the target's columns plus
       __si_marker, holding the whole new content of every touched partition (marker rows
       only name a partition that must end up empty). It carries the table property
       spark_incremental.apply_for = <schema>.<target>: a CTAS table is registered only
       once its data is written, so an apply table with that property is complete.
    2. _managed_apply_overwrite: insert overwrite of only those partitions (dynamic
       partition overwrite), then the partitions left empty are dropped. Idempotent.
    A run killed in step 2 is finished by the next run: _managed_recover finds the apply
    table, checks _managed_apply_is_for and runs step 2 again. Fault points for the tests
    (spark_incremental__fail_at): after_stage, before_overwrite, after_write. -#}
{% macro _managed_stage(target, columns, body_sql) -%}
  {#- no leftover to drop: _managed_recover ran before the plan -#}
  {%- set stage = spark_incremental._managed_side_tables(target).stage -%}
  {%- set create_sql -%}
create table {{ stage }}
using parquet
{{ spark_incremental._scratch_table_options() }}
as
select
        {{ spark_incremental._managed_column_list(columns) }}
from (
{{ body_sql }}
) as si_window
  {%- endset -%}
  {%- do adapter.execute(create_sql, fetch=false) -%}
  {%- do spark_incremental._managed_fault('after_stage') -%}
  {{- return(stage) -}}
{%- endmacro %}


{% macro _managed_apply_build(target, content_sql) -%}
  {%- set apply = spark_incremental._managed_side_tables(target).apply -%}
  {%- set create_sql -%}
create table {{ apply }}
using parquet
{{ spark_incremental._scratch_table_options() }}
tblproperties ('spark_incremental.apply_for' = {{ spark_incremental._quote(target.schema ~ '.' ~ target.identifier) }})
as
{{ content_sql }}
  {%- endset -%}
  {%- do adapter.execute(create_sql, fetch=false) -%}
  {{- return(apply) -}}
{%- endmacro %}


{#- True when `apply` is a complete apply table built for `target` (step 1 above). -#}
{% macro _managed_apply_is_for(apply, target) -%}
  {%- set found = spark_incremental._fetch_rows("show tblproperties " ~ apply ~ " ('spark_incremental.apply_for')") -%}
  {{- return(found | length > 0 and found[0][1] == target.schema ~ '.' ~ target.identifier) -}}
{%- endmacro %}


{#- Overwrite the target from <name>__si_apply: only its partitions (dynamic partition
    overwrite, set as the table's option unless target_desc says it is set), then drop the affected partitions that ended up
    empty. Unpartitioned: the whole table. Idempotent, so recovery can run it again.
    maybe_empty: the partitions that may end up empty (list of value lists), or none
    when unknown (recovery: all of the apply table's partitions are checked).
    The insert matches columns by name (`by name`), not by position: a target whose columns
    are not those of target_desc (another run rebuilt it after this one read its
    description) fails the write instead of filling one column with another's values. -#}
{% macro _managed_apply_overwrite(target, apply, target_desc, maybe_empty=none) -%}
  {%- set recovering = maybe_empty is none -%}
  {%- set columns = target_desc.columns -%}
  {%- set partition_columns = spark_incremental._managed_partition_columns(target_desc) -%}
  {%- set select_sql -%}
select
        {{ spark_incremental._managed_column_list(columns) }}
from {{ apply }}
where not __si_marker
  {%- endset -%}
  {%- if partition_columns | length == 0 -%}
    {%- if not recovering -%}
      {%- do spark_incremental._managed_fault('before_overwrite') -%}
    {%- endif -%}
    {%- do adapter.execute('insert overwrite table ' ~ target ~ ' by name\n' ~ select_sql, fetch=false) -%}
    {%- if not recovering -%}
      {%- do spark_incremental._managed_fault('after_write') -%}
    {%- endif -%}
    {{- return({'partitions': none, 'detail': ''}) -}}
  {%- endif -%}
  {%- set names = partition_columns | map(attribute=0) | list -%}
  {%- set summary_sql -%}
    select
        {{ spark_incremental._managed_partition_text(partition_columns, none) }},
        max(case when __si_marker then 0 else 1 end) as has_rows
    from {{ apply }}
    {%- if not recovering %}
    where {{ spark_incremental._managed_partition_predicate(partition_columns, maybe_empty, none) }}
    {%- endif %}
    group by {{ names | join(', ') }}
  {%- endset -%}
  {%- set partitions = spark_incremental._fetch_rows(summary_sql) if recovering or maybe_empty else [] -%}
  {%- set partition_count = partitions | length if recovering else none -%}
  {%- if not recovering -%}
    {%- do spark_incremental._managed_fault('before_overwrite') -%}
  {%- endif -%}
  {%- if not target_desc.get('dynamic_overwrite') -%}
    {%- do spark_incremental._ensure_dynamic_overwrite(target) -%}
  {%- endif -%}
  {%- do adapter.execute('insert overwrite table ' ~ target ~ ' partition (' ~ names | join(', ') ~ ') by name\n' ~ select_sql, fetch=false) -%}
  {%- set emptied = [] -%}
  {%- for row in partitions if row[names | length] == 0 -%}
    {%- set spec = [] -%}
    {%- for name in names -%}
      {%- if row[loop.index0] is not none -%}
        {%- do spec.append(name ~ ' = ' ~ spark_incremental._quote(row[loop.index0])) -%}
      {%- endif -%}
    {%- endfor -%}
    {%- if spec | length == names | length -%}
      {%- do adapter.execute('alter table ' ~ target ~ ' drop if exists partition (' ~ spec | join(', ') ~ ')', fetch=false) -%}
      {%- do emptied.append(spec | join(', ')) -%}
    {%- else -%}
      {%- do spark_incremental._warn(target.identifier ~ ': partition (' ~ names | join(', ') ~ ') with a null value is now empty'
          ~ ' but Spark cannot drop a null partition by name; its old rows remain') -%}
    {%- endif -%}
  {%- endfor -%}
  {%- if not recovering -%}
    {%- do spark_incremental._managed_fault('after_write') -%}
  {%- endif -%}
  {{- return({'partitions': partition_count,
              'detail': (emptied | length ~ ' emptied and dropped') if emptied else ''}) -}}
{%- endmacro %}

{#- Bring a forward-only model's table to the query's columns without rebuilding it from
    its sources. Added columns only: `alter table add columns` (old rows read null).
    Destructive changes (already allowed by _check_destructive_change): the table's own
    rows are copied beside it with the new columns (kept columns cast to their new type,
    dropped columns left out, added ones null), built by the build's own CTAS
    (_managed_create_sql: same partitioning and file format, the model's options,
    clustering, comment and tblproperties), and swapped in
    by _swap_in, which _managed_recover knows how to finish after a kill.
    new_columns: the query's [(name, type)]. Returns the action in words ('' = nothing). -#}
{% macro _apply_schema_change(target, diff, new_columns, file_format='parquet') -%}
  {%- if not diff.destructive -%}
    {%- if diff.added | length == 0 -%}
      {{- return('') -}}
    {%- endif -%}
    {%- set added = [] -%}
    {%- for name, type in diff.added -%}
      {%- do added.append(name ~ ' ' ~ type) -%}
    {%- endfor -%}
    {%- do adapter.execute('alter table ' ~ target ~ ' add columns (' ~ added | join(', ') ~ ')', fetch=false) -%}
    {{- return('added columns ' ~ diff.added | map(attribute=0) | join(', ')) -}}
  {%- endif -%}
  {%- set partitions = spark_incremental._partition_columns(target) -%}
  {%- set old_names = spark_incremental._relation_column_names(target) -%}
  {%- set select_list = [] -%}
  {%- for name, type in new_columns if name | lower not in partitions -%}
    {%- set column = name | lower -%}
    {%- if column in old_names -%}
      {%- do select_list.append('cast(' ~ column ~ ' as ' ~ type ~ ') as ' ~ column) -%}
    {%- else -%}
      {%- do select_list.append('cast(null as ' ~ type ~ ') as ' ~ column) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- for name in partitions -%}
    {%- do select_list.append(name) -%}
  {%- endfor -%}
  {#- the write layer's build-and-swap: a kill at any point leaves what _managed_recover
      finishes (the copy is complete once it exists) or undoes, never a lost table -#}
  {%- set migrated = spark_incremental._managed_side_tables(target).new -%}
  {%- do adapter.execute('drop table if exists ' ~ migrated, fetch=false) -%}
  {#- the build's own CTAS: the model's options, clustering, comment and tblproperties
      are kept; the partitioning is the table's own (a forward-only model keeps it) -#}
  {%- do adapter.execute(spark_incremental._managed_create_sql(migrated,
      'select ' ~ select_list | join(', ') ~ '\nfrom ' ~ target, file_format, partition_by=partitions), fetch=false) -%}
  {%- do spark_incremental._swap_in(target, migrated, target) -%}
  {{- return('migrated the table in place: ' ~ diff.description) -}}
{%- endmacro %}

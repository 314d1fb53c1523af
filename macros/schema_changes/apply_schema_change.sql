{#- Bring a forward-only model's table to the query's columns without rebuilding it from
    its sources. Added columns only: `alter table add columns` (old rows read null).
    Destructive changes (already allowed by _check_destructive_change): the table's own
    rows are copied beside it with the new columns (kept columns cast to their new type,
    dropped columns left out, added ones null), same partitioning, and swapped in; a
    failure before the swap leaves the old table as it was.
    new_columns: the query's [(name, type)]. Returns the action in words ('' = nothing). -#}
{% macro _apply_schema_change(target, diff, new_columns) -%}
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
  {%- set migrated = api.Relation.create(database=target.database, schema=target.schema,
                                         identifier=target.identifier ~ '__si_migrate', type='table') -%}
  {%- set backup = api.Relation.create(database=target.database, schema=target.schema,
                                       identifier=target.identifier ~ '__si_premigrate', type='table') -%}
  {%- do adapter.execute('drop table if exists ' ~ migrated, fetch=false) -%}
  {%- do adapter.execute('create table ' ~ migrated ~ ' using parquet'
      ~ (' partitioned by (' ~ partitions | join(', ') ~ ')' if partitions | length > 0 else '')
      ~ ' as\nselect ' ~ select_list | join(', ') ~ '\nfrom ' ~ target, fetch=false) -%}
  {%- do adapter.execute('drop table if exists ' ~ backup, fetch=false) -%}
  {%- do adapter.rename_relation(target, backup) -%}
  {%- do adapter.rename_relation(migrated, target) -%}
  {%- do adapter.drop_relation(backup) -%}
  {{- return('migrated the table in place: ' ~ diff.description) -}}
{%- endmacro %}

{#- Column and relation helpers for managed_incremental. All of them only read. -#}

{#- The model query's columns as [(name, type)], from `describe query` (no data read). -#}
{% macro _managed_query_columns(sql) -%}
  {%- set rows = spark_incremental._fetch_rows('describe query select * from (\n' ~ sql ~ '\n) as si_query') -%}
  {%- set columns = [] -%}
  {%- for row in rows -%}
    {%- do columns.append((row[0], row[1])) -%}
  {%- endfor -%}
  {{- return(columns) -}}
{%- endmacro %}


{#- A table's columns in table order as [(name, type)], its partition columns, and whether
    it carries the option partitionOverwriteMode = dynamic (dynamic_overwrite: the
    partition rewrite then sets nothing), in one metadata call. -#}
{% macro _managed_describe(relation) -%}
  {%- set rows = spark_incremental._fetch_rows('describe table extended ' ~ relation) -%}
  {%- set found = {'dynamic_overwrite': false} -%}
  {%- set columns = [] -%}
  {%- set partition_by = [] -%}
  {%- set section = {'name': 'columns'} -%}
  {%- for row in rows -%}
    {%- set name = (row[0] or '') | trim -%}
    {%- if name == '# Partition Information' -%}
      {%- do section.update({'name': 'partitions'}) -%}
    {%- elif name in ['', '# Detailed Table Information'] -%}
      {#- the extended part follows the columns (and the partition columns) -#}
      {%- do section.update({'name': 'other'}) -%}
    {%- elif name.startswith('#') -%}
      {#- a section's column header -#}
    {%- elif section.name == 'columns' -%}
      {%- do columns.append((name, row[1])) -%}
    {%- elif section.name == 'partitions' -%}
      {%- do partition_by.append(name) -%}
    {%- elif name == 'Storage Properties' -%}
      {%- do found.update({'dynamic_overwrite': modules.re.search(
          '(^|[\\[ ,])partitionOverwriteMode=dynamic([\\],]|$)', (row[1] or '') | trim) is not none}) -%}
    {%- endif -%}
  {%- endfor -%}
  {{- return({'columns': columns, 'partition_by': partition_by, 'dynamic_overwrite': found.dynamic_overwrite}) -}}
{%- endmacro %}


{#- Names of (name, type) columns joined for a select list, with an optional alias. -#}
{% macro _managed_column_list(columns, alias=none) -%}
  {%- set prefix = alias ~ '.' if alias else '' -%}
  {%- set names = [] -%}
  {%- for name, data_type in columns -%}
    {%- do names.append(prefix ~ adapter.quote(name)) -%}
  {%- endfor -%}
  {{- return(names | join(',\n        ')) -}}
{%- endmacro %}



{#- A relation beside the target: same schema, identifier + suffix. -#}
{% macro _managed_sibling(target, suffix) -%}
  {{- return(api.Relation.create(database=target.database, schema=target.schema,
                                 identifier=target.identifier ~ suffix, type='table')) -}}
{%- endmacro %}


{#- Does the relation exist? Uses dbt's relation cache (filled at the start of the run,
    kept current by adapter.rename_relation / drop_relation). -#}
{% macro _managed_exists(relation) -%}
  {{- return(adapter.get_relation(database=relation.database, schema=relation.schema,
                                  identifier=relation.identifier)) -}}
{%- endmacro %}

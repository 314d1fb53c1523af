{#- The partitions and keys the write paths (strategies.sql) join and filter on. -#}


{#- [(name, type)] of the target's partition columns, in partition order. -#}
{% macro _managed_partition_columns(target_desc) -%}
  {%- set types = {} -%}
  {%- for name, data_type in target_desc.columns -%}
    {%- do types.update({name | lower: data_type}) -%}
  {%- endfor -%}
  {%- set result = [] -%}
  {%- for name in target_desc.partition_by -%}
    {%- do result.append((name, types[name | lower])) -%}
  {%- endfor -%}
  {{- return(result) -}}
{%- endmacro %}


{% macro _managed_partition_text(partition_columns, alias) -%}
  {%- set items = [] -%}
  {%- for name, data_type in partition_columns -%}
    {%- do items.append('cast(' ~ (alias ~ '.' if alias else '') ~ name ~ ' as string) as ' ~ name) -%}
  {%- endfor -%}
  {{- return(items | join(', ')) -}}
{%- endmacro %}


{#- Predicate selecting the listed partitions (values as text, none = null). A long list
    becomes a set test instead (_partition_set_predicate): Spark sends a predicate on
    partition columns to the metastore, and an embedded Derby metastore fails on one of
    somewhere between 110 and 150 terms ("Statement too complex"). -#}
{% macro _managed_partition_predicate(partition_columns, values, alias) -%}
  {%- set prefix = alias ~ '.' if alias else '' -%}
  {%- if values | length * partition_columns | length > 100 -%}
    {{- return(spark_incremental._partition_set_predicate(partition_columns, values, prefix)) -}}
  {%- endif -%}
  {%- if partition_columns | length == 1 -%}
    {%- set name, data_type = partition_columns[0] -%}
    {%- set literals = [] -%}
    {%- for row in values if row[0] is not none -%}
      {%- do literals.append(spark_incremental._along_literal(row[0], data_type)) -%}
    {%- endfor -%}
    {%- set parts = [] -%}
    {%- if literals -%}
      {%- do parts.append(prefix ~ name ~ ' in (' ~ literals | join(', ') ~ ')') -%}
    {%- endif -%}
    {%- if values | selectattr(0, 'none') | list | length > 0 -%}
      {%- do parts.append(prefix ~ name ~ ' is null') -%}
    {%- endif -%}
    {{- return('(' ~ parts | join(' or ') ~ ')') -}}
  {%- endif -%}
  {%- set ors = [] -%}
  {%- for row in values -%}
    {%- set ands = [] -%}
    {%- for name, data_type in partition_columns -%}
      {%- set value = row[loop.index0] -%}
      {%- do ands.append(prefix ~ name ~ (' is null' if value is none else ' = ' ~ spark_incremental._along_literal(value, data_type))) -%}
    {%- endfor -%}
    {%- do ors.append('(' ~ ands | join(' and ') ~ ')') -%}
  {%- endfor -%}
  {{- return('(' ~ ors | join('\n            or ') ~ ')') -}}
{%- endmacro %}


{#- One row per affected partition: null data columns, the partition values, marker true. -#}
{% macro _managed_marker_sql(columns, partition_columns, values) -%}
  {%- set partition_names = partition_columns | map(attribute=0) | map('lower') | list -%}
  {%- set rows = [] -%}
  {%- for row in values -%}
    {%- set literals = [] -%}
    {%- for name, data_type in partition_columns -%}
      {%- do literals.append('cast(' ~ (spark_incremental._quote(row[loop.index0]) if row[loop.index0] is not none else 'null') ~ ' as ' ~ data_type ~ ')') -%}
    {%- endfor -%}
    {%- do rows.append('(' ~ literals | join(', ') ~ ')') -%}
  {%- endfor -%}
  {%- set select_items = [] -%}
  {%- for name, data_type in columns -%}
    {%- if name | lower in partition_names -%}
      {%- do select_items.append('m.' ~ name) -%}
    {%- else -%}
      {%- do select_items.append('cast(null as ' ~ data_type ~ ') as ' ~ name) -%}
    {%- endif -%}
  {%- endfor -%}
select
        {{ select_items | join(',\n        ') }},
        true as __si_marker
    from values
        {{ rows | join(',\n        ') }}
        as m({{ partition_columns | map(attribute=0) | join(', ') }})
{%- endmacro %}


{#- When a target row matches a new row, the two named as in dbt's MERGE,
    DBT_INTERNAL_DEST and DBT_INTERNAL_SOURCE (the queries that use it alias them so):
    every unique_key column equal, and every incremental_predicate true, as in
    dbt-spark's MERGE condition. The predicates are used as written: their aliases are
    the queries' own, so no text is rewritten, and Spark's errors name them. -#}
{% macro _managed_key_join(cfg) -%}
  {%- set parts = [] -%}
  {%- for key in cfg.unique_key -%}
    {%- do parts.append('DBT_INTERNAL_DEST.' ~ key ~ ' = DBT_INTERNAL_SOURCE.' ~ key) -%}
  {%- endfor -%}
  {%- for predicate in cfg.get('incremental_predicates') or [] -%}
    {%- do parts.append('(' ~ predicate ~ ')') -%}
  {%- endfor -%}
  {{- return(parts | join(' and ')) -}}
{%- endmacro %}

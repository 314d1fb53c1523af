{#- Predicate selecting many listed partitions (values as text, none = null), for
    _managed_partition_predicate. Spark hands the metastore the parts of a partition
    predicate it can translate (comparisons and in-lists of a column with literals), then
    evaluates the whole predicate on the partitions the metastore returns, and lists the
    files of those that match only. The set test (array_contains over named structs; a
    null field matches a null value) is a function, which Spark does not translate, so the
    metastore gets only the range of the first column: two terms, however long the list.
    The range is left out when a first value is null, or when the column's kind
    (_along_kind) has no order the package knows (then the metastore returns every
    partition's metadata; the files listed are still the named partitions' only). -#}
{% macro _partition_set_predicate(partition_columns, values, prefix) -%}
  {%- set structs = [] -%}
  {%- for row in values -%}
    {%- set fields = [] -%}
    {%- for name, data_type in partition_columns -%}
      {%- do fields.append(spark_incremental._quote(name) ~ ', cast(' ~ spark_incremental._quote(row[loop.index0])
          ~ ' as ' ~ data_type ~ ')') -%}
    {%- endfor -%}
    {%- do structs.append('named_struct(' ~ fields | join(', ') ~ ')') -%}
  {%- endfor -%}
  {%- set columns = [] -%}
  {%- for name, data_type in partition_columns -%}
    {%- do columns.append(spark_incremental._quote(name) ~ ', ' ~ prefix ~ name) -%}
  {%- endfor -%}
  {%- set test = 'array_contains(array(' ~ structs | join(', ') ~ '), named_struct(' ~ columns | join(', ') ~ '))' -%}
  {%- set name, data_type = partition_columns[0] -%}
  {%- set kind = spark_incremental._along_kind(data_type) -%}
  {%- set firsts = values | map(attribute=0) | list -%}
  {%- if kind not in ['integer', 'date', 'string'] or none in firsts -%}
    {{- return('(' ~ test ~ ')') -}}
  {%- endif -%}
  {#- integers by value; dates ('YYYY-MM-DD', as Spark casts them to text) and strings by
      their text, which is Spark's order for them -#}
  {%- set ordered = firsts | map('int') | list if kind == 'integer' else firsts -%}
  {%- set low = ordered | min(case_sensitive=true) -%}
  {%- set high = ordered | max(case_sensitive=true) -%}
  {{- return('(' ~ prefix ~ name ~ ' >= ' ~ spark_incremental._along_literal(low | string, data_type)
      ~ ' and ' ~ prefix ~ name ~ ' <= ' ~ spark_incremental._along_literal(high | string, data_type)
      ~ ' and ' ~ test ~ ')') -}}
{%- endmacro %}

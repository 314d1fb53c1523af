{#- The options clause of a parquet / orc table the package creates for a model (a
    build's CTAS, a forward-only migration's copy): the model's `options` and, when the
    table is partitioned, partitionOverwriteMode = dynamic (it replaces a value the model
    gives: the partition rewrite needs dynamic). The table so carries from its creation
    the option its partition rewrites need: _managed_describe sees it and
    _ensure_dynamic_overwrite issues no alter (that stays for tables built before, or by
    someone else). The option is kept by _swap_in's renames (Hive metastore; Spark 3.5.9
    and 4.3). Not for delta / iceberg / hudi: dbt-spark's options_clause, as before. -#}
{% macro _dynamic_overwrite_options(partitioned, options=none) -%}
  {%- set merged = {} -%}
  {%- for key, value in (options or {}).items() if not (partitioned and key | lower == 'partitionoverwritemode') -%}
    {%- do merged.update({key: value}) -%}
  {%- endfor -%}
  {%- if partitioned -%}
    {%- do merged.update({'partitionOverwriteMode': 'dynamic'}) -%}
  {%- endif -%}
  {%- set items = [] -%}
  {%- for key, value in merged.items() -%}
    {%- do items.append(key ~ ' ' ~ spark_incremental._quote(value)) -%}
  {%- endfor -%}
  {{- return(('options (' ~ items | join(', ') ~ ')') if items else '') -}}
{%- endmacro %}

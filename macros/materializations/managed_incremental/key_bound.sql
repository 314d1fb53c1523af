{#- upsert_date_key's bound on the search for a new row's key, the one rule of both
    write paths (the parquet partition rewrite and the table formats' MERGE): a table row
    is matched only when its upsert_date_key is on or after the new rows' earliest date
    minus upsert_lookback_days; an older copy of a key is not matched, so it stays.

    _managed_key_bound_stat(cfg): the expression over the staged rows that gives the
    bound as a date's text (one more column of the stage's count query).
    _managed_key_bound(cfg, columns, lowest): the predicate over DBT_INTERNAL_DEST for
    that text (`lowest`), 'true' when there is no bound (no upsert_date_key, or no new
    row). The literal has the column's own type, so a text partition column
    ('yyyy-MM-dd') is compared as text, which every metastore can filter, and Spark
    resolves it before it lists a file of the table. -#}
{% macro _managed_key_bound_stat(cfg) -%}
  {{- return('cast(date_sub(to_date(min(' ~ cfg.upsert_date_key ~ ')), ' ~ cfg.upsert_lookback_days ~ ') as string)') -}}
{%- endmacro %}


{% macro _managed_key_bound(cfg, columns, lowest) -%}
  {%- if not cfg.upsert_date_key or lowest is none -%}
    {{- return('true') -}}
  {%- endif -%}
  {%- set key_types = [] -%}
  {%- for name, data_type in columns if name | lower == cfg.upsert_date_key | lower -%}
    {%- do key_types.append(data_type) -%}
  {%- endfor -%}
  {%- set literal = spark_incremental._along_literal(lowest, key_types[0])
      if spark_incremental._along_kind(key_types[0]) in ['string', 'date', 'timestamp']
      else 'to_date(' ~ spark_incremental._quote(lowest) ~ ')' -%}
  {{- return('DBT_INTERNAL_DEST.' ~ cfg.upsert_date_key ~ ' >= ' ~ literal) -}}
{%- endmacro %}

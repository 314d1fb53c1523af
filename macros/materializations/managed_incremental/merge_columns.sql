{#- dbt's merge_update_columns / merge_exclude_columns on managed_incremental: an upsert
    by unique_key that updates only some columns of a matched row and keeps the others,
    as dbt-spark's merge does on delta (`when matched then update set` those columns;
    `when not matched then insert *`). Here on every file format: the parquet write layer
    takes the kept columns from the matched target row (_managed_merged_rows_sql).

    _managed_merge_columns(conf, prefix, unique_key, declared, strategy) checks the two
    configs (validate.sql, before any SQL) and returns none when neither is set (an empty
    list is not set, as in dbt), else {key: the config set, columns: its column names}.
    Allowed only on an upsert as dbt's merge does it (_managed_check_keyed_merge), and
    only one of the two, as dbt-core says. -#}
{% macro _managed_merge_columns(conf, prefix, unique_key, declared, strategy) -%}
  {%- set found = [] -%}
  {%- for key in ['merge_update_columns', 'merge_exclude_columns'] -%}
    {%- set names = spark_incremental._managed_name_list(conf.get(key), key, prefix) -%}
    {%- if names | length > 0 -%}
      {%- do found.append({'key': key, 'columns': names}) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- if found | length == 0 -%}
    {{- return(none) -}}
  {%- endif -%}
  {%- set setting = found[0] -%}
  {%- set shown = setting.key ~ ' = ' ~ setting.columns -%}
  {%- if found | length > 1 -%}
    {%- do exceptions.raise_compiler_error(prefix ~ "merge_update_columns and merge_exclude_columns are both set."
        ~ " Allowed: one of them (the columns a matched row takes from the query, or the ones it keeps).") -%}
  {%- endif -%}
  {%- do spark_incremental._managed_check_keyed_merge(prefix, setting.key, shown, unique_key, declared, strategy) -%}
  {{- return(setting) -}}
{%- endmacro %}


{#- The columns a matched row keeps (lower-case names): with merge_update_columns every
    column not listed, with merge_exclude_columns the listed ones; [] without either.
    Keeping every column is refused: checked against the query's columns before any SQL
    runs (validate_columns.sql) and against the table's at each write, which may differ
    (on_schema_change 'ignore'). -#}
{% macro _managed_merge_kept(cfg, columns) -%}
  {%- set setting = cfg.get('merge_columns') -%}
  {%- if setting is none -%}
    {{- return([]) -}}
  {%- endif -%}
  {%- set listed = setting.columns | map('lower') | list -%}
  {%- set kept = [] -%}
  {%- for name, data_type in columns -%}
    {%- if (name | lower in listed) == (setting.key == 'merge_exclude_columns') -%}
      {%- do kept.append(name | lower) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- if kept | length == columns | length -%}
    {%- do exceptions.raise_compiler_error("spark_incremental: model '" ~ cfg.model ~ "': " ~ setting.key ~ " = "
        ~ setting.columns ~ " keeps every column (" ~ columns | map(attribute=0) | join(', ') ~ "): a matched row"
        ~ " would never change. Allowed: a list that leaves at least one of those columns to update.") -%}
  {%- endif -%}
  {{- return(kept) -}}
{%- endmacro %}

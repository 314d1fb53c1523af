{#- Before an incremental write: bring the target's columns in line with the query's as
    settings.mode says (see _on_schema_change_settings), or stop the run.

      ignore              nothing changes: query columns the target lacks are not
                          inserted, target columns the query lacks get null (dbt's rule);
      fail                any added, dropped or retyped column fails the run, naming
                          them; nothing is written;
      append_new_columns  `alter table add columns` for the query's new columns (old rows
                          read null); nothing is dropped or retyped;
      sync_all_columns    new columns added, and dropped or retyped ones applied by
                          migrating the table's own rows (_apply_schema_change), gated by
                          on_destructive_change (_check_destructive_change).

    Returns the change in words ('' when the table was not altered). -#}
{% macro _on_schema_change_apply(cfg, target, target_columns, query_columns) -%}
  {%- set settings = cfg.schema_change -%}
  {%- set diff = spark_incremental._schema_diff(target_columns, query_columns) -%}
  {%- if diff.description == '' or settings.mode == 'ignore' -%}
    {{- return('') -}}
  {%- endif -%}
  {%- if settings.mode == 'fail' -%}
    {%- set why = "on_schema_change = 'fail'" if settings.source == 'on_schema_change'
        else 'it declares its mutability, so on_schema_change defaults to fail' -%}
    {%- do exceptions.raise_compiler_error("spark_incremental: model '" ~ cfg.model ~ "': its columns changed since "
        ~ target ~ " was built (" ~ diff.description ~ ") and " ~ why ~ ". Nothing was written. Run it once with"
        ~ " --full-refresh to rebuild it, or set on_schema_change to append_new_columns, sync_all_columns or"
        ~ " ignore. " ~ spark_incremental._rebuild_cost_text(cfg.model)) -%}
  {%- endif -%}
  {%- if settings.mode == 'append_new_columns' -%}
    {%- set diff = {'added': diff.added, 'destructive': false} -%}
  {%- else -%}
    {%- set diff = spark_incremental._check_destructive_change(cfg.model, settings, target_columns, query_columns) -%}
  {%- endif -%}
  {%- set changed = spark_incremental._apply_schema_change(target, diff, query_columns) -%}
  {{- return((settings.mode if settings.source == 'on_schema_change' else settings.source) ~ ': ' ~ changed if changed else '') -}}
{%- endmacro %}


{#- The model's query shaped for an insert into a target with `target_columns`: target
    columns the query lacks are selected as null (on_schema_change ignore and
    append_new_columns); the query's extra columns are left to the writer's column list.
    The query as it is when it has every target column. -#}
{% macro _on_schema_change_fit_sql(sql, target_columns, query_columns) -%}
  {%- set have = query_columns | map(attribute=0) | map('lower') | list -%}
  {%- set known = target_columns | map(attribute=0) | map('lower') | list -%}
  {%- if known | reject('in', have) | list | length == 0 -%}
    {{- return(sql) -}}
  {%- endif -%}
  {%- set items = [] -%}
  {%- for name, data_type in target_columns -%}
    {%- do items.append(adapter.quote(name) if name | lower in have else 'cast(null as ' ~ data_type ~ ') as ' ~ adapter.quote(name)) -%}
  {%- endfor -%}
  {%- for name, data_type in query_columns if name | lower not in known -%}
    {%- do items.append(adapter.quote(name)) -%}
  {%- endfor -%}
  {{- return('select\n        ' ~ items | join(',\n        ') ~ '\nfrom (\n' ~ sql ~ '\n) as si_fit') -}}
{%- endmacro %}

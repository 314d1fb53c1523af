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
  {%- set changed = spark_incremental._apply_schema_change(target, diff, query_columns, cfg.file_format) -%}
  {%- set label = settings.mode if settings.source == 'on_schema_change' else settings.source -%}
  {{- return(label ~ ': ' ~ changed if changed else '') -}}
{%- endmacro %}


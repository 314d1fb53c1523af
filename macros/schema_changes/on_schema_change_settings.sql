{#- What an incremental run does when the query's columns differ from the target's: the
    one rule for on_schema_change (dbt's config) and forward_only / on_destructive_change
    (the package's).

      on_schema_change set   it decides (dbt's meaning): ignore, fail, append_new_columns,
                             sync_all_columns; forward_only then only keeps the table on a
                             config change;
      else forward_only      sync_all_columns, destructive parts (dropped or retyped
                             columns) gated by on_destructive_change (default error);
      else no mutability     ignore (dbt's default, for models switched from incremental);
      else                   fail (a model that declares its mutability: rebuild it).

    on_destructive_change applies to sync_all_columns only (default error under
    forward_only, allow when sync_all_columns is asked for); contradictions are refused:
    sync_all_columns with on_destructive_change = error, and on_destructive_change with a
    mode that never drops or retypes a column.
    Returns {mode, on_destructive_change, source: 'on_schema_change' | 'forward_only' |
    'default'}. -#}
{% macro _on_schema_change_settings(model_name, on_schema_change, forward_only, on_destructive_change, declared) -%}
  {%- set where = "spark_incremental: model '" ~ model_name ~ "': " -%}
  {%- set modes = ['ignore', 'fail', 'append_new_columns', 'sync_all_columns'] -%}
  {%- set mode = (on_schema_change | string | trim | lower) if on_schema_change is not none else none -%}
  {%- if mode is not none and mode not in modes -%}
    {%- do exceptions.raise_compiler_error(where ~ "on_schema_change = '" ~ on_schema_change ~ "' is not allowed."
        ~ " Allowed: " ~ modes | join(', ') ~ " (default: ignore without mutability, fail with it;"
        ~ " sync_all_columns gated by on_destructive_change for forward_only models).") -%}
  {%- endif -%}
  {%- set destructive = (on_destructive_change | string | lower) if on_destructive_change is not none else none -%}
  {%- if mode is none -%}
    {%- if forward_only.forward_only -%}
      {{- return({'mode': 'sync_all_columns', 'on_destructive_change': forward_only.on_destructive_change,
                  'source': 'forward_only'}) -}}
    {%- endif -%}
    {%- set mode = 'fail' if declared else 'ignore' -%}
    {%- set source = 'default' -%}
  {%- else -%}
    {%- set source = 'on_schema_change' -%}
  {%- endif -%}
  {%- if mode == 'sync_all_columns' and destructive == 'error' -%}
    {%- do exceptions.raise_compiler_error(where ~ "on_schema_change = 'sync_all_columns' drops and retypes columns"
        ~ " to match the query, but on_destructive_change = 'error' refuses exactly that. Set on_destructive_change"
        ~ " to warn or allow (or leave it unset: allow), or on_schema_change to append_new_columns, which never drops"
        ~ " a column.") -%}
  {%- endif -%}
  {%- if mode != 'sync_all_columns' and destructive is not none -%}
    {%- do exceptions.raise_compiler_error(where ~ "on_destructive_change = '" ~ on_destructive_change ~ "' is set"
        ~ " but on_schema_change is '" ~ mode ~ "'" ~ (' (its default here)' if source == 'default' else '')
        ~ ", which never drops or retypes a column, so it would have no effect. Allowed: on_destructive_change"
        ~ " with on_schema_change = 'sync_all_columns', or with forward_only = true and no on_schema_change.") -%}
  {%- endif -%}
  {{- return({'mode': mode, 'on_destructive_change': destructive or 'allow', 'source': source}) -}}
{%- endmacro %}

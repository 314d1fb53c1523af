{#- Decide about a destructive schema change (dropped or retyped columns) before anything
    is written, for a forward-only model or on_schema_change = 'sync_all_columns':
    on_destructive_change = error fails the run naming the columns; warn logs a warning;
    allow logs a line. settings: {on_destructive_change, source} (see
    _on_schema_change_settings; the forward_only settings work too). Returns the diff. -#}
{% macro _check_destructive_change(model_name, settings, old_columns, new_columns) -%}
  {%- set diff = spark_incremental._schema_diff(old_columns, new_columns) -%}
  {%- if diff.destructive -%}
    {%- set why = "on_schema_change = 'sync_all_columns'" if settings.get('source') == 'on_schema_change' else 'forward_only' -%}
    {%- set message = "model '" ~ model_name ~ "' is " ~ why ~ " and its new columns are a destructive change ("
        ~ diff.description ~ ")" -%}
    {%- if settings.on_destructive_change == 'error' -%}
      {%- do exceptions.raise_compiler_error("spark_incremental: " ~ message ~ ". Nothing was changed."
          ~ " Set on_destructive_change: warn or allow to apply it (the table's rows are kept and"
          ~ " migrated), or --full-refresh to rebuild. " ~ spark_incremental._rebuild_cost_text(model_name)) -%}
    {%- elif settings.on_destructive_change == 'warn' -%}
      {%- do spark_incremental._warn(message ~ '; applied because on_destructive_change = warn') -%}
    {%- else -%}
      {%- do spark_incremental._log(message ~ '; applied (on_destructive_change = allow)') -%}
    {%- endif -%}
  {%- endif -%}
  {{- return(diff) -}}
{%- endmacro %}

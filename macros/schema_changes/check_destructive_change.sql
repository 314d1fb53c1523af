{#- Decide about a forward-only model's schema change before anything is written:
    destructive (dropped or retyped columns) with on_destructive_change = error fails the
    run naming the columns; warn logs a warning; allow logs a line. Returns the diff. -#}
{% macro _check_destructive_change(model_name, settings, old_columns, new_columns) -%}
  {%- set diff = spark_incremental._schema_diff(old_columns, new_columns) -%}
  {%- if diff.destructive -%}
    {%- set message = "model '" ~ model_name ~ "' is forward_only and its new columns are a destructive change ("
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

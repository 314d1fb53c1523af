{#- The models the manifest holds progress (last_success) for that are not tracked models
    of the project now (disabled, deleted or renamed): the runs leave their tables and
    progress as they are. show_state and the plan preview print the same line for each.
    current: _manifest_current_rows; tracked: tracked_models(). Returns a list, by name, of
    {model, last_success (text), line}. -#}
{% macro _departed_models(current, tracked) -%}
  {%- set departed = [] -%}
  {%- for name, row in current | dictsort if name not in tracked and row.get('last_success') is not none -%}
    {%- set since = spark_incremental._ts_text(row.last_success) -%}
    {%- do departed.append({'model': name, 'last_success': since,
        'line': name ~ ": in the manifest (last_success '" ~ since ~ "') but not a tracked model of this"
            ~ " project now (disabled, deleted or renamed?): the runs leave its table and its progress as"
            ~ " they are; back in the project it catches up (state 3), or is backfilled if its table is"
            ~ " gone; spark_incremental__models_to_remove forgets it"}) -%}
  {%- endfor -%}
  {{- return(departed) -}}
{%- endmacro %}

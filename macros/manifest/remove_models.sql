{#- on-run-start: forget the models listed in spark_incremental__models_to_remove, so they
    are backfilled from start_date by the next run. Appends 'remove' tombstones; nothing
    is deleted. Use as: on-run-start: "{{ spark_incremental.remove_models() }}" -#}
{% macro remove_models() -%}
  {{- return(adapter.dispatch('remove_models', 'spark_incremental')()) -}}
{%- endmacro %}


{% macro default__remove_models() -%}
  {%- if not execute -%}
    {{- return('') -}}
  {%- endif -%}
  {%- set to_remove = spark_incremental.get_config_var('models_to_remove') -%}
  {%- if to_remove | length == 0 -%}
    {{- return('') -}}
  {%- endif -%}
  {#- a name that is neither a tracked model nor in the manifest is most likely misspelt
      (read before the tombstones are appended: the lock's read, no query) -#}
  {%- set tracked = spark_incremental.tracked_models() -%}
  {%- set recorded = spark_incremental._manifest_current_rows(at_lock=true) -%}
  {%- set rows = [] -%}
  {%- for name in to_remove -%}
    {%- do rows.append({'model': name, 'record_type': 'remove', 'action': 'removed by spark_incremental__models_to_remove'}) -%}
  {%- endfor -%}
  {%- do spark_incremental.append_manifest_rows(rows) -%}
  {%- do spark_incremental._log('removed from the manifest: ' ~ to_remove | join(', ') ~ ' (backfilled from start_date next)') -%}
  {%- for name in to_remove if name not in tracked and name not in recorded -%}
    {%- do spark_incremental._warn("spark_incremental__models_to_remove: '" ~ name ~ "' is not a tracked model"
        ~ " of this project nor in the manifest: nothing to backfill for it. Tracked models: "
        ~ (tracked | join(', ') if tracked else 'none') ~ '.') -%}
  {%- endfor -%}
  {{- return('') -}}
{%- endmacro %}

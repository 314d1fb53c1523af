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
  {#- a model an earlier run removed and that has progress again (its backfill ran): the
      var was left set, and every run would forget and backfill it again -#}
  {%- set again = spark_incremental._removed_before(to_remove | select('in', recorded) | list) -%}
  {#- warned before the append: a warning that dbt raises as an error (--warn-error) stops
      the run with nothing removed and the run lock released (_warn) -#}
  {%- for name, earlier in again.items() if recorded[name].get('last_success') is not none -%}
    {%- do spark_incremental._warn("spark_incremental__models_to_remove still names '" ~ name ~ "', which run "
        ~ earlier.invocation_id ~ ' already removed at ' ~ earlier.removed_at ~ ' UTC and which has been backfilled'
        ~ ' since: this run removes it again, and every run removes it while the var is set. Unset the var'
        ~ " (it is meant for one run) unless you want this model's backfill from start_date again (under"
        ~ " --warn-error this warning stops the run before anything is removed: run that removal once"
        ~ " without --warn-error).") -%}
  {%- endfor -%}
  {%- for name in to_remove if name not in tracked and name not in recorded -%}
    {%- do spark_incremental._warn("spark_incremental__models_to_remove: '" ~ name ~ "' is not a tracked model"
        ~ " of this project nor in the manifest: nothing to backfill for it. Tracked models: "
        ~ (tracked | join(', ') if tracked else 'none') ~ '.') -%}
  {%- endfor -%}
  {%- set rows = [] -%}
  {%- for name in to_remove -%}
    {%- do rows.append({'model': name, 'record_type': 'remove', 'action': 'removed by spark_incremental__models_to_remove'}) -%}
  {%- endfor -%}
  {%- do spark_incremental.append_manifest_rows(rows) -%}
  {%- do spark_incremental._log('removed from the manifest: ' ~ to_remove | join(', ') ~ ' (backfilled from start_date next)') -%}
  {{- return('') -}}
{%- endmacro %}


{#- {model: {removed_at, invocation_id}} of the latest 'remove' row the manifest log holds
    for each of names (a compaction keeps none of them: then nothing); one query, none
    without names. -#}
{% macro _removed_before(names) -%}
  {%- set found = {} -%}
  {%- if names | length == 0 -%}
    {{- return(found) -}}
  {%- endif -%}
  {%- set quoted = [] -%}
  {%- for name in names -%}
    {%- do quoted.append(spark_incremental._quote(name)) -%}
  {%- endfor -%}
  {%- set sql -%}
    select
        model,
        date_format(max(written_at), 'yyyy-MM-dd HH:mm:ss') as removed_at,
        max_by(invocation_id, written_at) as invocation_id
    from {{ spark_incremental.manifest_log_relation() }}
    where record_type = 'remove' and model in ({{ quoted | join(', ') }})
    group by model
  {%- endset -%}
  {%- for row in spark_incremental._fetch_rows(sql) -%}
    {%- do found.update({row[0]: {'removed_at': row[1], 'invocation_id': row[2]}}) -%}
  {%- endfor -%}
  {{- return(found) -}}
{%- endmacro %}

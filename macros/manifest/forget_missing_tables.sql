{#- on-run-start, after the run lock: a model fed by the events window (a tracked model,
    the sessions lifecycle manifest) whose table does not exist while the manifest holds
    progress for it (the table was dropped by hand, or the model was deleted and added
    back) is forgotten by the rebuild rule (_forget_rebuilt): built from this run's
    window alone it would hold one window and look whole. Forgotten before the run
    limits are read, this run backfills it from start_date (state 2; state 1 when the
    lifecycle manifest is gone). Only models whose table keeps what earlier runs wrote
    are checked: a `table` or `view` holds this run's window anyway (dbt-spark's table
    build drops the old table first, so a failed build leaves none), and an ephemeral
    model has no table. Returns the forgotten models. -#}
{% macro _forget_missing_tables() -%}
  {%- set forgotten = [] -%}
  {%- for missing in spark_incremental._missing_table_models() if missing.model not in forgotten -%}
    {%- do forgotten.extend(spark_incremental._forget_rebuilt(missing.model,
        'its table ' ~ missing.relation ~ ' does not exist (dropped, the model deleted and added back, or its schema or alias changed)'
        ~ ' while the manifest holds progress for it', before_limits=true)) -%}
  {%- endfor -%}
  {{- return(forgotten) -}}
{%- endmacro %}


{#- The models _forget_missing_tables checks whose table does not exist ({model,
    relation}; the lifecycle manifest first). Reads only (one existence check each). -#}
{% macro _missing_table_models() -%}
  {%- set missing = [] -%}
  {%- set lifecycle = 'spark_incremental_base_sessions_lifecycle_manifest' -%}
  {%- for name in [lifecycle] + spark_incremental.tracked_models() -%}
    {%- set node = spark_incremental._node_by_name(name) -%}
    {%- if node is not none and node.config.materialized not in ['table', 'view', 'ephemeral', 'materialized_view'] -%}
      {%- set relation = spark_incremental._relation_for_model(name) -%}
      {%- if not spark_incremental._relation_exists(relation) -%}
        {%- do missing.append({'model': name, 'relation': relation}) -%}
      {%- endif -%}
    {%- endif -%}
  {%- endfor -%}
  {{- return(missing) -}}
{%- endmacro %}


{#- The plan preview and show_state: what the next run's start hook does by
    _forget_missing_tables, without writing. The state they read with the locks
    (_run_lock_status, the run cache's manifest_at_lock snapshot) loses the forgotten
    models' last_success, as the hook's 'remove' rows make it, so the run limits they
    compute next are the run's (state 2, or 1 for the lifecycle manifest). Returns the
    log lines saying so. -#}
{% macro _preview_forget_missing_tables() -%}
  {%- set lines = [] -%}
  {%- set snapshot = spark_incremental._run_cache('manifest_at_lock') -%}
  {%- if not spark_incremental._events_enabled() or 'found' not in snapshot -%}
    {{- return(lines) -}}
  {%- endif -%}
  {%- set forgotten = [] -%}
  {%- for missing in spark_incremental._missing_table_models() if missing.model not in forgotten -%}
    {%- set names = [] -%}
    {%- for name in spark_incremental._models_forgotten_by_rebuild(missing.model, snapshot.found) -%}
      {%- do names.append(name) -%}
      {%- set row = {} -%}
      {%- do row.update(snapshot.found[name]) -%}
      {%- do row.update({'last_success': none}) -%}
      {%- do snapshot.found.update({name: row}) -%}
    {%- endfor -%}
    {%- if names | length > 0 -%}
      {%- do forgotten.extend(names) -%}
      {%- do lines.append(missing.model ~ ': its table ' ~ missing.relation ~ ' does not exist while the manifest holds'
          ~ ' progress for it: the next run forgets ' ~ names | join(', ') ~ ' in its on-run-start hook and backfills '
          ~ ('it' if names | length == 1 else 'them') ~ ' from spark_incremental__start_date (shown below)'
          ~ ('; it also empties the quarantine' if missing.model == 'spark_incremental_base_sessions_lifecycle_manifest' else '')) -%}
    {%- endif -%}
  {%- endfor -%}
  {{- return(lines) -}}
{%- endmacro %}

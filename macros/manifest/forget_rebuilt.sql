{#- The one rule for rebuilds of models fed by the events window: a model built from a
    window of events is whole only when that window started at start_date for it, i.e.
    when the manifest holds no progress for it. Rebuilt any other way (--full-refresh, a
    changed config, a change description that plans a full refresh), it is emptied and
    forgotten: its manifest row is removed before the swap, so the next runs backfill it
    from start_date as a new model (state 2), in steps of backfill_limit_days. A
    rebuild of the sessions lifecycle manifest empties every session of the base chain:
    every tracked model is forgotten (state 1 next) and the quarantine is emptied too. -#}

{#- The tracked models a rebuild of model_name must forget: the tracked models when it is
    the lifecycle manifest, else model_name when it is tracked; only those with progress
    in the manifest (a model without progress is being built from start_date). current:
    the manifest state to read (the previews pass the one they read with the locks);
    default the current state. -#}
{% macro _models_forgotten_by_rebuild(model_name, current=none) -%}
  {%- set tracked = spark_incremental.tracked_models() -%}
  {%- if model_name == 'spark_incremental_base_sessions_lifecycle_manifest' -%}
    {%- set candidates = tracked -%}
  {%- elif model_name in tracked -%}
    {%- set candidates = [model_name] -%}
  {%- else -%}
    {{- return([]) -}}
  {%- endif -%}
  {%- set current = current if current is not none else spark_incremental._manifest_current_rows() -%}
  {%- set found = [] -%}
  {%- for name in candidates if current.get(name, {}).get('last_success') is not none -%}
    {%- do found.append(name) -%}
  {%- endfor -%}
  {{- return(found) -}}
{%- endmacro %}


{#- Is model_name fed by the events window (a rebuild of it must be backfilled)? -#}
{% macro _is_windowed_model(model_name) -%}
  {{- return(model_name == 'spark_incremental_base_sessions_lifecycle_manifest'
      or model_name in spark_incremental.tracked_models()) -}}
{%- endmacro %}


{#- Apply the rule for a rebuild of model_name (reason: why it is rebuilt). Appends one
    'remove' row per forgotten model (action 'rebuilt: ...'; update_manifest records no
    progress for them in this run) and logs it. Call it before the swap: if the run dies
    after, the model is forgotten and the next runs re-derive it whole. before_limits:
    called by the start hook, before this run's limits are read (_forget_missing_tables):
    the run itself backfills the forgotten models and records their progress. Returns the
    forgotten models (empty: the build is whole, nothing to do). -#}
{% macro _forget_rebuilt(model_name, reason, before_limits=false) -%}
  {%- set forgotten = spark_incremental._models_forgotten_by_rebuild(model_name) -%}
  {%- if forgotten | length == 0 -%}
    {{- return([]) -}}
  {%- endif -%}
  {%- set rows = [] -%}
  {%- for name in forgotten -%}
    {%- do rows.append({'model': name, 'record_type': 'remove', 'action': 'rebuilt: ' ~ model_name ~ ', ' ~ reason}) -%}
  {%- endfor -%}
  {%- do spark_incremental.append_manifest_rows(rows) -%}
  {%- if not before_limits -%}
    {%- do spark_incremental._run_cache('rebuilt').setdefault('models', []).extend(forgotten) -%}
  {%- endif -%}
  {%- if model_name == 'spark_incremental_base_sessions_lifecycle_manifest' -%}
    {#- the quarantine holds sessions of the lifecycle manifest being emptied: it is
        re-derived with it (a session left in it would never enter the lifecycle again) -#}
    {%- set quarantine = spark_incremental._existing_model_relation('spark_incremental_base_quarantined_sessions') -%}
    {%- if quarantine is not none -%}
      {%- do adapter.execute('truncate table ' ~ quarantine, fetch=false) -%}
      {%- do spark_incremental._log(model_name ~ ': emptied ' ~ quarantine ~ ' (re-derived with the lifecycle manifest)') -%}
    {%- endif -%}
  {%- endif -%}
  {%- do spark_incremental._log(model_name ~ ': ' ~ reason ~ ': removed from the manifest: ' ~ forgotten | join(', ')
      ~ '. ' ~ spark_incremental._rebuild_cost_text(model_name)) -%}
  {{- return(forgotten) -}}
{%- endmacro %}


{#- Models whose manifest row a rebuild removed in this invocation (update_manifest does
    not record progress for them): _forget_rebuilt, the one writer of those 'remove' rows,
    notes them for the invocation as it appends them (_run_cache), so no query. -#}
{% macro _models_rebuilt_this_run() -%}
  {{- return(spark_incremental._run_cache('rebuilt').get('models', []) | unique | list) -}}
{%- endmacro %}


{#- What a rebuild of model_name costs, in words, for every message that advises or
    announces one. -#}
{% macro _rebuild_cost_text(model_name) -%}
  {%- if not spark_incremental._is_windowed_model(model_name) -%}
    {{- return('A rebuild recomputes the whole table from its sources.') -}}
  {%- endif -%}
  {{- return('A rebuild of a model fed by the events window'
      ~ (' (the lifecycle manifest: every tracked model)' if model_name == 'spark_incremental_base_sessions_lifecycle_manifest' else '')
      ~ ' empties it and backfills it from spark_incremental__start_date (' ~ spark_incremental.get_config_var('start_date')
      ~ ') as a new model, ' ~ spark_incremental.get_config_var('backfill_limit_days')
      ~ ' days (spark_incremental__backfill_limit_days) per run, until it catches up.') -}}
{%- endmacro %}

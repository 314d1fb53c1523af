{#- on-run-end: record progress for the tracked models that succeeded in this invocation.
    Use as: on-run-end: "{{ spark_incremental.update_manifest() }}"
    last_success = max(session timestamp) of the run's window (spark_incremental_base_events_in_window:
    every event it read, those it then dropped too: a duplicate's later copy, an event past
    its session's cap, a quarantined session's; they stay dropped, and a newer one that
    counted as new would make every later run process the lookback again); a model
    that made no progress while events exist past the window (a gap in the data longer
    than backfill_limit_days) moves to upper_limit; a restatement (state 5) records
    nothing. In the same insert: the state each managed_incremental model that succeeded
    reached after its write (_pending_state_rows), and the release of the run lock.
    Appends to the log; never rewrites. A warning that dbt raises as an error
    (--warn-error) is raised after that append (_warn), so the failed run's work is
    recorded and its lock released. -#}
{% macro update_manifest() -%}
  {{- return(adapter.dispatch('update_manifest', 'spark_incremental')()) -}}
{%- endmacro %}


{% macro default__update_manifest() -%}
  {%- if not execute -%}
    {{- return('') -}}
  {%- endif -%}
  {%- set values = spark_incremental.validate_config_vars() -%}
  {%- if spark_incremental._command_writes() and (not spark_incremental._run_takes_lock(values)
        or spark_incremental._limited_inputs_refusal(values)) -%}
    {#- start_run took no lock (nothing of the package ran), or refused dbt's --empty or --sample -#}
    {{- return('') -}}
  {%- endif -%}
  {#- a run whose lock was taken over (a statement, or models that keep no heartbeat, ran
      longer than the timeout) records only the models that finished before the release -#}
  {#- ending first: a warning from here to the append (the lock check's included) is kept
      until the append has returned (_warn) -#}
  {%- do spark_incremental._run_cache('run_lock').update({'ending': true}) -%}
  {%- set lost = spark_incremental._check_run_lock_held(stop=false) -%}
  {%- set ended = results if lost is none else spark_incremental._results_before(results, lost.released_at) -%}
  {#- the managed models' states after their writes (kept for this insert), then progress -#}
  {%- set rows = spark_incremental._pending_state_rows(ended) -%}
  {%- do rows.extend(spark_incremental._progress_rows_for_results(ended)) -%}
  {%- if lost is not none -%}
    {%- do spark_incremental.append_manifest_rows(rows) -%}
    {%- do spark_incremental._raise_deferred_warnings(as_log=true) -%}
    {%- do exceptions.raise_compiler_error(lost.message) -%}
  {%- endif -%}
  {%- if spark_incremental._command_writes() -%}
    {#- the run lock taken by start_run ends with the run, in the same insert -#}
    {%- do rows.append({'model': spark_incremental._lock_model_name(), 'record_type': 'unlock',
                        'state': invocation_id, 'action': 'run ended'}) -%}
  {%- endif -%}
  {%- do spark_incremental.append_manifest_rows(rows) -%}
  {#- under --warn-error, a warning of this hook stops the run only now, its work recorded
      (before the compaction, maintenance that the next run does as well) -#}
  {%- do spark_incremental._raise_deferred_warnings() -%}
  {#- every run adds partitions (lock, managed state, progress): keep the log small -#}
  {%- if rows | length > 0 -%}
    {%- do spark_incremental.compact_manifest() -%}
  {%- endif -%}
  {{- return('') -}}
{%- endmacro %}


{#- The results of a run whose lock was released at released_at (another run took it
    over): those of the models that succeeded before that instant (their end by this
    run's clock, the release by the other run's), and those that did not succeed; the
    models that succeeded after it are left out (their progress is not recorded) and
    logged. released_at none (the log no longer holds the row): no success counts. -#}
{% macro _results_before(run_results, released_at) -%}
  {%- set kept = [] -%}
  {%- set late = [] -%}
  {%- for result in run_results -%}
    {%- set ended = result.timing | selectattr('name', 'equalto', 'execute') | map(attribute='completed_at') | list -%}
    {%- if result.status != 'success' or (released_at is not none and ended | length > 0
          and ended[0].replace(tzinfo=none) < released_at) -%}
      {%- do kept.append(result) -%}
    {%- elif result.node.resource_type == 'model' -%}
      {%- do late.append(result.node.name) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- if late | length > 0 -%}
    {%- do spark_incremental._log('manifest: the lock was released before ' ~ late | join(', ')
        ~ ' finished: their progress is not recorded') -%}
  {%- endif -%}
  {{- return(kept) -}}
{%- endmacro %}


{#- The 'events' rows to record for `run_results` (this invocation's results, or those of
    _results_before), logged. -#}
{% macro _progress_rows_for_results(run_results) -%}
  {%- set tracked = spark_incremental.tracked_models() -%}
  {%- set succeeded = [] -%}
  {%- set failed = [] -%}
  {%- set ran_ok = [] -%}
  {%- for result in run_results -%}
    {%- if result.node.resource_type == 'model' -%}
      {%- if result.status == 'success' -%}
        {%- do ran_ok.append(result.node.name) -%}
      {%- endif -%}
      {%- if result.node.name in tracked -%}
        {%- if result.status == 'success' -%}
          {%- do succeeded.append(result.node.name) -%}
        {%- else -%}
          {%- do failed.append(result.node.name ~ ' (' ~ result.status ~ ')') -%}
        {%- endif -%}
      {%- endif -%}
    {%- endif -%}
  {%- endfor -%}
  {%- if failed | length > 0 -%}
    {%- do spark_incremental._log('manifest unchanged for ' ~ failed | join(', ')
        ~ '; the next run catches them up (state 3 if other tracked models record progress now)') -%}
  {%- endif -%}
  {%- if succeeded | length == 0 -%}
    {{- return([]) -}}
  {%- endif -%}
  {%- do spark_incremental._forget_full_refreshed(run_results | selectattr('node.name', 'in', succeeded) | list) -%}
  {#- a model rebuilt from a window in this run was removed from the manifest before its
      swap (_forget_rebuilt): its progress is not recorded, the next runs backfill it -#}
  {%- set rebuilt = spark_incremental._models_rebuilt_this_run() -%}
  {%- if rebuilt | length > 0 -%}
    {%- do spark_incremental._log('manifest: no progress recorded for ' ~ rebuilt | join(', ')
        ~ ' (rebuilt in this run and removed from the manifest: backfilled from start_date next)') -%}
    {%- set succeeded = succeeded | reject('in', rebuilt) | list -%}
    {%- if succeeded | length == 0 -%}
      {{- return([]) -}}
    {%- endif -%}
  {%- endif -%}
  {#- progress counts only when the whole base chain ran in this invocation: a chain run in
      part (e.g. --exclude of the lifecycle manifest) gives events_this_run stale sessions -#}
  {%- set missing = [] -%}
  {%- for name in spark_incremental._base_chain_models() if name not in ran_ok -%}
    {%- do missing.append(name) -%}
  {%- endfor -%}
  {%- if missing | length > 0 -%}
    {%- do spark_incremental._warn('tracked models ' ~ succeeded | join(', ')
        ~ ' ran without the whole base chain in the same invocation (not run or not successful: '
        ~ missing | join(', ') ~ '): manifest not updated. Select the base models too'
        ~ ' (e.g. dbt run --select +my_model).') -%}
    {{- return([]) -}}
  {%- endif -%}
  {%- set limits_ran = run_results | selectattr('node.name', 'equalto', 'spark_incremental_base_new_event_limits')
      | selectattr('status', 'equalto', 'success') | list | length > 0 -%}
  {%- set progress = spark_incremental._manifest_progress_rows(succeeded, limits_ran) -%}
  {%- if progress is none -%}
    {{- return([]) -}}
  {%- endif -%}
  {%- set rows = progress.rows -%}
  {%- set watermark = spark_incremental._load_watermark_row(progress.newest_load) -%}
  {%- for row in rows -%}
    {%- do spark_incremental._log('manifest: ' ~ row.model ~ " last_success = '" ~ spark_incremental._ts_text(row.last_success)
        ~ "'" ~ (' (' ~ row.action ~ ')' if row.action != 'processed' else '')) -%}
  {%- endfor -%}
  {%- if rows | length == 0 -%}
    {%- do spark_incremental._log('manifest: no event newer than what the models have processed, and none past the window: nothing to record') -%}
  {%- endif -%}
  {%- if watermark is not none -%}
    {%- do spark_incremental._log("manifest: load watermark = '" ~ watermark.last_success ~ "'"
        ~ (' (' ~ watermark.action ~ ')' if watermark.action != 'load watermark' else '')) -%}
    {%- do rows.append(watermark) -%}
  {%- endif -%}
  {{- return(rows) -}}
{%- endmacro %}


{#- {rows: the 'events' rows to append for the models that succeeded, newest_load: the
    newest load timestamp the run read, as text or none (_window_newest, with the newest
    session timestamp)}; none when the run's window
    was empty (nothing new: nothing to record, nothing read) or the run was a restatement
    (it reprocessed data already processed: no last_success moves, and no load watermark,
    since it did not read the lookback window). limits_ran: the limits model
    ran in this invocation, so the last_success it recorded is the manifest's current one
    (the run lock keeps other runs out) and the log need not be read again. -#}
{% macro _manifest_progress_rows(succeeded, limits_ran=false) -%}
  {%- set limits = spark_incremental.return_limits_from_model(
      spark_incremental._relation_for_model('spark_incremental_base_new_event_limits')) -%}
  {%- if limits.nothing_new -%}
    {%- do spark_incremental._log('manifest: no event arrived since the last run; nothing to record') -%}
    {{- return(none) -}}
  {%- elif limits.restate -%}
    {%- do spark_incremental._log("manifest: restatement of '" ~ spark_incremental._ts_text(limits.lower_limit)
        ~ "' to '" ~ spark_incremental._ts_text(limits.upper_limit) ~ "': no progress recorded (last_success and"
        ~ " the load watermark unchanged)") -%}
    {{- return(none) -}}
  {%- endif -%}
  {#- read with the sessions' time range in this run (events_this_run), else asked now -#}
  {%- set newest = spark_incremental._window_newest() -%}
  {%- set new_max = spark_incremental._parse_ts(newest.newest_session) -%}
  {%- if new_max is none -%}
    {%- do spark_incremental._warn_unmatched_app_ids(limits.lower_limit, limits.upper_limit) -%}
  {%- endif -%}
  {%- set current = {} -%}
  {%- if limits_ran -%}
    {%- for name, stamp in limits.last_success_by_model.items() -%}
      {%- do current.update({name: {'last_success': stamp}}) -%}
    {%- endfor -%}
  {%- else -%}
    {%- do current.update(spark_incremental._manifest_current_rows()) -%}
  {%- endif -%}
  {%- set rows = [] -%}
  {%- set beyond = {'checked': false, 'found': false} -%}
  {%- for name in succeeded -%}
    {%- set old = current.get(name, {}).get('last_success') -%}
    {%- if new_max is not none and (old is none or new_max > old) -%}
      {%- do rows.append({'model': name, 'record_type': 'events', 'last_success': new_max, 'action': 'processed'}) -%}
    {%- else -%}
      {%- if not beyond.checked -%}
        {%- do beyond.update({'checked': true, 'found': spark_incremental._events_exist_after(limits.upper_limit)}) -%}
      {%- endif -%}
      {%- if beyond.found and (old is none or limits.upper_limit > old) -%}
        {%- do rows.append({'model': name, 'record_type': 'events', 'last_success': limits.upper_limit,
                            'action': 'no events in the window but events after it: moved past the gap'}) -%}
      {%- endif -%}
    {%- endif -%}
  {%- endfor -%}
  {{- return({'rows': rows, 'newest_load': newest.newest_load}) -}}
{%- endmacro %}


{#- The package's base models (the events pipeline's chain), enabled, by name. -#}
{% macro _base_chain_models() -%}
  {%- set names = [] -%}
  {%- for node in graph.nodes.values() -%}
    {%- if node.resource_type == 'model' and node.package_name == 'spark_incremental'
          and node.name.startswith('spark_incremental_base_') and node.config.enabled -%}
      {%- do names.append(node.name) -%}
    {%- endif -%}
  {%- endfor -%}
  {{- return(names | sort) -}}
{%- endmacro %}


{#- Tracked models of dbt's own incremental materialization that --full-refresh rebuilt
    in this invocation hold one window of sessions (the package cannot build them empty
    as it does managed_incremental ones). The same rule applies after the fact: the
    model leaves the manifest (_forget_rebuilt), then its table is emptied, so the next
    runs backfill it from start_date. In that order: a kill in between leaves a forgotten
    model over its window's rows, which the backfill re-derives (upserts) rather than a
    recorded model over an empty table. -#}
{% macro _forget_full_refreshed(results_ok) -%}
  {%- if not flags.FULL_REFRESH -%}
    {{- return([]) -}}
  {%- endif -%}
  {%- set forgotten = [] -%}
  {%- for result in results_ok if result.node.config.materialized == 'incremental'
      and result.node.config.get('full_refresh') is not sameas false -%}
    {%- set node = result.node -%}
    {%- set found = spark_incremental._forget_rebuilt(node.name,
        'full refresh: --full-refresh of a dbt incremental model (built from one window)') -%}
    {%- if found | length > 0 -%}
      {%- set relation = api.Relation.create(database=node.database, schema=node.schema,
          identifier=node.alias, type='table') -%}
      {%- do adapter.execute('truncate table ' ~ relation, fetch=false) -%}
      {%- do spark_incremental._log(node.name ~ ': emptied ' ~ relation ~ ' (it held one window; backfilled from start_date next)') -%}
      {%- do forgotten.extend(found) -%}
    {%- endif -%}
  {%- endfor -%}
  {{- return(forgotten) -}}
{%- endmacro %}

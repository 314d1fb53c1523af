{#- A run lock on the manifest, built on the append-only log: one events pipeline run at
    a time.

    - A run appends a 'lock' row (state = its invocation id) and, once the append has
      returned, reads the open locks (a 'lock' row and no 'unlock' row for the same
      invocation; silent ones are taken over, see below). If the only live lock is its
      own, it proceeds: no wait when nobody else runs.
    - Otherwise the live locks are ordered by their first stamp (ties by invocation id).
      A run that is not the oldest appends its 'unlock' row and stops, naming the oldest.
      The oldest waits (a short sleep, then a read, up to _lock_wait_seconds, or three
      times what its own append and read took if more: a loaded server) until every
      other lock it saw has an 'unlock' row, then proceeds; a lock still open at the cap
      makes it stop too, naming that lock's run.
    - Why two runs never proceed together. It rests on one assumption: a row is read by
      every read that starts after its append returned. Take two runs A and B whose
      appends returned in that order. B read the locks after its own append returned,
      so after A's: B saw A's lock, unless A had already unlocked (A was over). Seeing
      it, B either stopped or waited until A's lock had an 'unlock' row: A stopped
      before its models, or ended. So B never works while A does; A may have read
      before B's row was there and proceeded alone, which is safe, since B then defers.
      (An 'unlock' for A written by another run, A silent for the timeout or
      force_unlock, counts too: the timeout's own bound.) This holds for every pair, so
      for any number of runs. The stamps (client clocks) only pick who waits: skewed
      clocks or a slow commit cost a wait or a refusal, never two runs at once. A run
      waits only for locks younger than its own, so no two runs wait for each other,
      and every wait ends at the cap.
    - A running run keeps its lock alive: once a third of lock_timeout_minutes has passed
      since the run started, every model and interval batch appends a heartbeat ('lock'
      row, action 'heartbeat'). A lock whose newest row is older than
      spark_incremental__lock_timeout_minutes is silent: its run was killed. The next run
      releases it, says whose lock it took over and why, and proceeds. A run that was
      only slow (a statement, or a stretch of models that keep no heartbeat, ran longer
      than the timeout) finds its lock released at its next model or at its end, stops
      there and records only the models that finished before the release
      (_check_run_lock_held): the overlap is that stretch.
    - update_manifest appends the run's 'unlock' row at the end;
      spark_incremental__force_unlock releases every open lock at once. dbt runs no
      on-run-end hook after a failed on-run-start: from its lock row to the end of
      start_run, an error of the package's (_stop_run) or a warning that dbt raises as an
      error (_warn) appends the run's 'unlock' row first; a failed Spark statement cannot
      be caught and leaves the lock, as a killed run's. -#}
{% macro _acquire_run_lock() -%}
  {%- set name = spark_incremental._lock_model_name() -%}
  {%- set timeout = spark_incremental._lock_timeout_minutes() -%}
  {%- set rows = [] -%}
  {%- if spark_incremental.get_config_var('force_unlock') -%}
    {%- set released = spark_incremental._open_locks() -%}
    {%- for holder in released -%}
      {%- do rows.append({'model': name, 'record_type': 'unlock', 'state': holder.invocation_id,
                          'action': 'released by spark_incremental__force_unlock'}) -%}
    {%- endfor -%}
    {%- if released | length > 0 -%}
      {%- do spark_incremental._log('force_unlock: released ' ~ released | length ~ ' lock(s)') -%}
    {%- endif -%}
  {%- endif -%}
  {%- do rows.append({'model': name, 'record_type': 'lock', 'state': invocation_id, 'action': 'run started'}) -%}
  {%- set began = modules.datetime.datetime.utcnow() -%}
  {%- do spark_incremental.append_manifest_rows(rows) -%}
  {#- from here until start_run ends, an error of the package's releases the lock first
      (_stop_run, _warn): dbt runs no on-run-end hook after a failed on-run-start -#}
  {%- do spark_incremental._run_cache('run_lock').update({'last_row_at': began, 'start_hook': true}) -%}

  {#- the append has returned: every lock appended before it is read now -#}
  {%- set live = spark_incremental._take_over_silent_locks(timeout) -%}
  {%- if live | selectattr('invocation_id', 'equalto', invocation_id) | list | length == 0 -%}
    {%- do spark_incremental._stop_run(spark_incremental._own_lock_missing_message()) -%}
  {%- endif -%}
  {%- set others = live | rejectattr('invocation_id', 'equalto', invocation_id) | list -%}
  {%- if others | length == 0 -%}
    {{- return(none) -}}
  {%- endif -%}
  {%- if live[0].invocation_id != invocation_id -%}
    {%- set holder = live[0] -%}
  {%- else -%}
    {%- set took = (modules.datetime.datetime.utcnow() - began).total_seconds() -%}
    {%- set open = spark_incremental._wait_for_younger_locks(others, [spark_incremental._lock_wait_seconds(), 3 * took] | max) -%}
    {%- set holder = open[0] if open | length > 0 else none -%}
    {#- a younger run that read before this run's lock row may have written while this
        run waited: the state read with the locks is not this run's to use -#}
    {%- do spark_incremental._forget_manifest_reads() -%}
  {%- endif -%}
  {%- if holder is not none -%}
    {%- set silent_from = spark_incremental._lock_silent_from(holder, timeout) -%}
    {%- do spark_incremental._stop_run(
        "spark_incremental: another dbt run (invocation " ~ holder.invocation_id ~ ", started "
        ~ holder.locked_at ~ " UTC, last seen " ~ holder.seen_at ~ " UTC) holds the manifest lock;"
        ~ " this run changed nothing. A running run keeps its lock alive; if that run is dead, the"
        ~ " next run takes its lock over once it has been silent for " ~ spark_incremental._minutes_text(timeout)
        ~ " (spark_incremental__lock_timeout_minutes), from " ~ silent_from.strftime('%Y-%m-%d %H:%M:%S')
        ~ " UTC if it writes no other row, or run again now with"
        ~ " --vars '{spark_incremental__force_unlock: true}' if you are sure it is dead.") -%}
  {%- endif -%}
{%- endmacro %}


{#- Why this run's own lock is not among the open locks read right after its append (an
    error path: one more read of the log). Either the log already holds an 'unlock' row for
    this invocation id, and the message quotes its first one, told apart by who wrote it:
    this same invocation id (an earlier invocation with this id took and released the
    lock) or another one (it took this lock over, or force_unlock released it); or there
    is no such row: the log's reads do not see every append that returned before them,
    which the lock needs. -#}
{% macro _own_lock_missing_message() -%}
  {%- set relation = spark_incremental.ensure_manifest_log() -%}
  {%- set row = spark_incremental._own_unlock_row() -%}
  {%- set prefix = "spark_incremental: this run's lock on the manifest (invocation " ~ invocation_id ~ ")" -%}
  {%- if row is none -%}
    {{- return(prefix ~ " is not read back from " ~ relation ~ " after its append returned; the run lock"
        ~ " needs a read to see every append that returned before it. This run changed nothing.") -}}
  {%- endif -%}
  {%- if row.writer == invocation_id -%}
    {{- return(prefix ~ " reads as released: " ~ relation ~ " already holds an 'unlock' row for this"
        ~ " invocation id, " ~ row.quoted ~ ". An earlier invocation with the same id took and released the"
        ~ " lock: dbt gives every invocation a new id, so a process that repeats an invocation (a child"
        ~ " process that re-runs its parent's dbt call, a replayed task carrying the id) must start dbt"
        ~ " anew. This run changed nothing.") -}}
  {%- endif -%}
  {{- return(prefix ~ " was released by another run before this run read it: " ~ row.quoted
      ~ ". This run changed nothing; run it again.") -}}
{%- endmacro %}


{#- This run holds the oldest live lock, and saw the younger ones `others` open: runs that
    started with it (they see its lock and back off) or a run that read before this run's
    lock row was there (it proceeded). Sleep and read again until every one of them has
    an 'unlock' row, for at most wait_seconds. Returns those still open at the cap
    (empty: proceed), with their newest seen_at. -#}
{% macro _wait_for_younger_locks(others, wait_seconds) -%}
  {%- set waited_for = others | map(attribute='invocation_id') | list -%}
  {%- set started = modules.datetime.datetime.utcnow() -%}
  {%- set deadline = started + modules.datetime.timedelta(seconds=wait_seconds) -%}
  {%- do spark_incremental._log('the manifest lock: ' ~ others | length ~ ' younger lock(s) open ('
      ~ waited_for | join(', ') ~ '); waiting up to ' ~ '%.1f' | format(wait_seconds)
      ~ ' s for their release') -%}
  {%- set state = {'open': others} -%}
  {%- for poll in range(1000) if state.open | length > 0 and modules.datetime.datetime.utcnow() < deadline -%}
    {%- do spark_incremental._fetch_rows("select reflect('java.lang.Thread', 'sleep', cast("
        ~ spark_incremental._lock_poll_ms() ~ " as bigint))") -%}
    {%- do state.update({'open': spark_incremental._open_locks()
        | selectattr('invocation_id', 'in', waited_for) | list}) -%}
  {%- endfor -%}
  {%- if state.open | length == 0 -%}
    {%- do spark_incremental._log('the manifest lock: released after '
        ~ '%.1f' | format((modules.datetime.datetime.utcnow() - started).total_seconds()) ~ ' s; this run proceeds') -%}
  {%- endif -%}
  {{- return(state.open) -}}
{%- endmacro %}

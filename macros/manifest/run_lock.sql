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
      spark_incremental__force_unlock releases every open lock at once. -#}
{% macro _lock_model_name() -%}
  {{- return('__spark_incremental_run_lock__') -}}
{%- endmacro %}


{#- How long the oldest of several open locks waits at least for the others' 'unlock'
    rows (seconds), and how long it sleeps between two reads (milliseconds). A run that
    started together with it backs off within a read and an append: the wait is three
    times what this run's own append and read took, if that is longer (on a loaded
    server, 3.9 s of waiting was seen with two runs started together). -#}
{% macro _lock_wait_seconds() -%}
  {{- return(4) -}}
{%- endmacro %}


{% macro _lock_poll_ms() -%}
  {{- return(500) -}}
{%- endmacro %}


{#- Whole minutes, 1 or more (checked by the var spec, before the lock is taken). -#}
{% macro _lock_timeout_minutes() -%}
  {{- return(spark_incremental.get_config_var('lock_timeout_minutes')) -}}
{%- endmacro %}


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
  {%- do spark_incremental._run_cache('run_lock').update({'last_row_at': began}) -%}

  {#- the append has returned: every lock appended before it is read now -#}
  {%- set live = spark_incremental._take_over_silent_locks(timeout) -%}
  {%- if live | selectattr('invocation_id', 'equalto', invocation_id) | list | length == 0 -%}
    {%- do exceptions.raise_compiler_error(spark_incremental._own_lock_missing_message()) -%}
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
    {%- do spark_incremental._release_run_lock() -%}
    {%- set silent_from = spark_incremental._lock_silent_from(holder, timeout) -%}
    {%- do exceptions.raise_compiler_error(
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


{#- The first 'unlock' row of this invocation's lock in the log (one read): {writer: the
    invocation that wrote it, written_at: when (its writer's clock, UTC), quoted: its
    action, when and by whom, as a message quotes it}, or none when the log holds no
    such row. -#}
{% macro _own_unlock_row() -%}
  {%- set sql -%}
    select
        invocation_id,
        action,
        date_format(written_at, 'yyyy-MM-dd HH:mm:ss.SSSSSS') as written_at
    from {{ spark_incremental.ensure_manifest_log() }}
    where
        model = {{ spark_incremental._quote(spark_incremental._lock_model_name()) }}
        and state = {{ spark_incremental._quote(invocation_id) }}
        and record_type = 'unlock'
    order by written_at
    limit 1
  {%- endset -%}
  {%- set rows = spark_incremental._fetch_rows(sql) -%}
  {%- if rows | length == 0 -%}
    {{- return(none) -}}
  {%- endif -%}
  {{- return({'writer': rows[0][0],
              'written_at': modules.datetime.datetime.strptime(rows[0][2], '%Y-%m-%d %H:%M:%S.%f'),
              'quoted': "'" ~ rows[0][1] ~ "' (written " ~ rows[0][2] ~ " UTC by invocation " ~ rows[0][0] ~ ")"}) -}}
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


{#- The rule for a dead run's lock: an open lock (from _open_locks) is silent from
    `timeout` minutes after its newest row (seen_at, its writer's clock), by this clock.
    The run lock takes a silent lock over; its refusal, the plan and show_state say from
    when a held one would be. _lock_silent_from: that moment (UTC datetime). -#}
{% macro _lock_silent_from(holder, timeout) -%}
  {{- return(modules.datetime.datetime.strptime(holder.seen_at, '%Y-%m-%d %H:%M:%S.%f')
      + modules.datetime.timedelta(minutes=timeout)) -}}
{%- endmacro %}


{% macro _lock_is_silent(holder, timeout) -%}
  {{- return(spark_incremental._lock_silent_from(holder, timeout) <= modules.datetime.datetime.utcnow()) -}}
{%- endmacro %}


{#- The open run locks, for the read-only reports (plan, show_state): one read of the log
    that also brings the manifest state (_manifest_current_rows(at_lock=true) reuses it);
    none read when the log does not exist yet. A list, oldest first, of {invocation_id,
    locked_at, seen_at (UTC text to the second), status: 'held' (a run of the package's
    models started now stops before its models) or 'silent' (the next run takes it over:
    _lock_is_silent), silent_from: when a held lock turns silent if no row comes}, and the
    lines that say so. Writes nothing. -#}
{% macro _run_lock_status() -%}
  {%- set found = {'locks': [], 'lines': []} -%}
  {%- if spark_incremental._relation_exists(spark_incremental.manifest_log_relation()) -%}
    {%- set timeout = spark_incremental._lock_timeout_minutes() -%}
    {%- for holder in spark_incremental._open_locks(with_state=true) -%}
      {%- set lock = {'invocation_id': holder.invocation_id, 'locked_at': holder.locked_at[:19],
          'seen_at': holder.seen_at[:19],
          'status': 'silent' if spark_incremental._lock_is_silent(holder, timeout) else 'held',
          'silent_from': spark_incremental._lock_silent_from(holder, timeout).strftime('%Y-%m-%d %H:%M:%S')} -%}
      {%- do found.locks.append(lock) -%}
      {%- if lock.status == 'held' -%}
        {%- do found.lines.append('run lock: held by invocation ' ~ lock.invocation_id ~ ' (started ' ~ lock.locked_at
            ~ ' UTC, last seen ' ~ lock.seen_at ~ " UTC): a run of the package's models started now stops before its"
            ~ ' models. If that run is dead, the next run takes its lock over from ' ~ lock.silent_from ~ ' UTC ('
            ~ spark_incremental._minutes_text(timeout) ~ ' silent, spark_incremental__lock_timeout_minutes), or at once with'
            ~ ' spark_incremental__force_unlock') -%}
      {%- else -%}
        {%- do found.lines.append('run lock: invocation ' ~ lock.invocation_id ~ ' (started ' ~ lock.locked_at
            ~ ' UTC) has been silent since ' ~ lock.seen_at ~ ' UTC, more than ' ~ spark_incremental._minutes_text(timeout) ~ ': its run was'
            ~ ' killed, and the next run takes its lock over') -%}
      {%- endif -%}
    {%- endfor -%}
  {%- endif -%}
  {%- if found.locks | length == 0 -%}
    {%- do found.lines.append('run lock: free (no run holds it)') -%}
  {%- endif -%}
  {{- return(found) -}}
{%- endmacro %}


{#- Release the open locks that have been silent for longer than the timeout (one
    append, with a warning per lock naming it), and return the live ones, oldest first
    (this run's own lock is among them). The warning says released, not taken: two runs
    started at once after a kill may both release the dead lock, and only the older of
    their own locks goes on. -#}
{% macro _take_over_silent_locks(timeout) -%}
  {%- set live = [] -%}
  {%- set released = [] -%}
  {%- for holder in spark_incremental._open_locks(with_state=true) -%}
    {%- if not spark_incremental._lock_is_silent(holder, timeout) or holder.invocation_id == invocation_id -%}
      {%- do live.append(holder) -%}
    {%- else -%}
      {%- set why = 'silent since ' ~ holder.seen_at ~ ' UTC, more than ' ~ spark_incremental._minutes_text(timeout)
          ~ ' (spark_incremental__lock_timeout_minutes): its run was killed' -%}
      {%- do released.append({'model': spark_incremental._lock_model_name(), 'record_type': 'unlock',
                              'state': holder.invocation_id, 'action': 'taken over by ' ~ invocation_id ~ ': ' ~ why}) -%}
      {%- do spark_incremental._warn('released the silent manifest lock of invocation ' ~ holder.invocation_id
          ~ ' (started ' ~ holder.locked_at ~ ' UTC, ' ~ why ~ ')') -%}
    {%- endif -%}
  {%- endfor -%}
  {%- do spark_incremental.append_manifest_rows(released) -%}
  {{- return(live) -}}
{%- endmacro %}


{% macro _release_run_lock() -%}
  {%- do spark_incremental.append_manifest_rows([{'model': spark_incremental._lock_model_name(),
      'record_type': 'unlock', 'state': invocation_id, 'action': 'run ended'}]) -%}
{%- endmacro %}


{#- Keep this run's lock alive in a long run: when its newest own lock row (its lock, or
    the previous heartbeat) is a third of the timeout old or more, append a heartbeat.
    Called at every model that reads the run limits, every managed_incremental model and
    every interval batch, each first checking that the run still holds its lock
    (_check_run_lock_held). Costs nothing in a run shorter than a third of the timeout,
    and at most one append per third of the timeout in a longer one, however many models
    and batches it runs. A run that took no lock keeps none. -#}
{% macro _keep_run_lock() -%}
  {#- update_manifest checks the lock itself, then reads the limits: no heartbeat at the end -#}
  {%- set lock = spark_incremental._run_cache('run_lock') -%}
  {%- if not execute or flags.WHICH not in ['run', 'build'] or lock.get('ending') -%}
    {{- return(none) -}}
  {%- endif -%}
  {%- do spark_incremental._check_run_lock_held() -%}
  {%- if 'last_row_at' not in lock -%}
    {{- return(none) -}}
  {%- endif -%}
  {%- set now = modules.datetime.datetime.utcnow() -%}
  {%- if (now - lock.last_row_at).total_seconds() >= spark_incremental._lock_timeout_minutes() * 20 -%}
    {%- do spark_incremental.append_manifest_rows([{'model': spark_incremental._lock_model_name(),
        'record_type': 'lock', 'state': invocation_id, 'action': 'heartbeat'}]) -%}
    {%- do lock.update({'last_row_at': now}) -%}
  {%- endif -%}
{%- endmacro %}


{#- The smallest lock_timeout_minutes (whole minutes) under which a stretch of `seconds`
    without a lock row cannot let another run in: 1.5 times it (the newest lock row may be a
    third of the timeout old when the stretch begins), rounded up. -#}
{% macro _lock_timeout_for(seconds) -%}
  {{- return((seconds * 1.5 / 60) | round(0, 'ceil') | int) -}}
{%- endmacro %}


{#- A run whose own lock rows are a third of lock_timeout_minutes old or more (a
    statement, or models that keep no heartbeat, ran that long) may have been taken
    over meanwhile: another run that saw the lock silent for the timeout released it and
    may be writing the same tables. Such a run reads the open locks (one read of the log)
    before its next model, interval batch or end-of-run append. When its own lock is no
    longer open it stops, quoting the row that released it: this model and every later
    one raise (without reading again); update_manifest calls it with stop=false and gets
    {message, released_at: when the lock was released, none when the log no longer holds
    the row}, so that it records only the models that finished before (then raises).
    Returns none while the run holds its lock. When it still holds it but a third of the
    timeout or more passed since the previous of these points (a model, or models that
    keep no heartbeat, ran that long), it warns: twice as long could let the next run in
    (the newest row may be a third of the timeout old when a stretch begins). A run that
    took no lock has nothing to check. -#}
{% macro _check_run_lock_held(stop=true) -%}
  {%- set lock = spark_incremental._run_cache('run_lock') -%}
  {%- if 'lost' not in lock -%}
    {%- if 'last_row_at' not in lock -%}
      {{- return(none) -}}
    {%- endif -%}
    {%- set timeout = spark_incremental._lock_timeout_minutes() -%}
    {%- set now = modules.datetime.datetime.utcnow() -%}
    {%- set silent = (now - lock.last_row_at).total_seconds() -%}
    {%- set since_previous = (now - lock.get('checked_at', lock.last_row_at)).total_seconds() -%}
    {%- do lock.update({'checked_at': now}) -%}
    {%- if silent < timeout * 20 -%}
      {{- return(none) -}}
    {%- endif -%}
    {%- if spark_incremental._open_locks() | selectattr('invocation_id', 'equalto', invocation_id) | list | length > 0 -%}
      {%- if since_previous >= timeout * 20 -%}
        {%- do spark_incremental._warn('this run went ' ~ '%.1f' | format(since_previous / 60)
            ~ ' minutes without keeping its lock alive (a model, or models that read neither the run limits nor'
            ~ ' a managed table, ran that long), a third of spark_incremental__lock_timeout_minutes (' ~ timeout
            ~ ') or more. A lock without a new row for ' ~ spark_incremental._minutes_text(timeout) ~ ' is taken over by the next run, and a'
            ~ " run's newest lock row may be a third of that old when such a stretch begins: a stretch of "
            ~ '%.1f' | format(timeout * 2 / 3) ~ ' minutes could let the next run in while this run works. Keep'
            ~ ' spark_incremental__lock_timeout_minutes at least 1.5 times the longest such stretch ('
            ~ spark_incremental._lock_timeout_for(since_previous) ~ ' for this one).') -%}
      {%- endif -%}
      {{- return(none) -}}
    {%- endif -%}
    {%- set row = spark_incremental._own_unlock_row() -%}
    {%- set released = ("was released while this run worked: " ~ row.quoted) if row is not none
        else ("is no longer in " ~ spark_incremental.manifest_log_relation() ~ " (released, and the log compacted since)") -%}
    {%- do lock.update({'lost': {
        'released_at': row.written_at if row is not none else none,
        'message': "spark_incremental: this run's lock on the manifest (invocation " ~ invocation_id ~ ") "
            ~ released ~ ". This run wrote no lock row for " ~ '%.1f' | format(silent / 60) ~ " minutes (a statement,"
            ~ " or models that keep no heartbeat, ran that long); a lock silent for spark_incremental__lock_timeout_minutes ("
            ~ timeout ~ ") is taken over by the next run, so another run may have written the same tables since. This"
            ~ " run stops here; its end records only the models that finished before the release, and the next run"
            ~ " processes the window again. Set spark_incremental__lock_timeout_minutes to at least 1.5 times the longest"
            ~ " such stretch (" ~ spark_incremental._lock_timeout_for(silent) ~ " for this one).",
    }}) -%}
  {%- endif -%}
  {%- if stop -%}
    {%- do exceptions.raise_compiler_error(lock.lost.message) -%}
  {%- endif -%}
  {{- return(lock.lost) -}}
{%- endmacro %}


{#- Open locks, oldest first: per invocation with 'lock' rows and no 'unlock' row, when
    it took the lock (locked_at) and when it last wrote a lock row (seen_at), as
    'yyyy-MM-dd HH:mm:ss.SSSSSS' text. One scan of the log (each scan lists its
    partitions, with a Spark job above 32), which also reads the current state of every
    model (_manifest_current_select_sql with lock_holders); with_state keeps that state
    for the run limits (_manifest_current_rows(at_lock=true)): one read of the log
    instead of two. -#}
{% macro _open_locks(with_state=false) -%}
  {%- set relation = spark_incremental.ensure_manifest_log() -%}
  {%- set sql -%}
    with

    current_rows as (
        {{ spark_incremental._manifest_current_select_sql(relation, lock_holders=true) | indent(4) }}
    ),

    final as (
        select * from current_rows
        where
            kind = 'state'
            or (unlocked = 0 and locked_at is not null)
    )

    select * from final
  {%- endset -%}
  {%- set holders = [] -%}
  {%- set states = [] -%}
  {%- for row in spark_incremental._fetch_rows(sql) -%}
    {%- if row[0] == 'lock' -%}
      {%- do holders.append({'invocation_id': row[1], 'locked_at': row[2], 'seen_at': row[3]}) -%}
    {%- else -%}
      {%- do states.append(row[5:]) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- if with_state -%}
    {%- do spark_incremental._run_cache('manifest_at_lock').update(
        {'found': spark_incremental._manifest_current_store(states)}) -%}
  {%- endif -%}
  {{- return(holders | sort(attribute='invocation_id') | sort(attribute='locked_at')) -}}
{%- endmacro %}

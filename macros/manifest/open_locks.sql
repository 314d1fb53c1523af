{#- The open run locks read from the manifest log, and the rule for a dead run's lock
    (the protocol: acquire_run_lock.sql). -#}


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


{#- Release the open locks that have been silent for longer than the timeout (one
    append, then a warning per lock naming it), and return the live ones, oldest first
    (this run's own lock is among them). The warning says released, not taken: two runs
    started at once after a kill may both release the dead lock, and only the older of
    their own locks goes on. The warnings come after the append: one that dbt raises as an
    error (--warn-error) then stops this run with the dead lock released, and its own
    (_warn), so the next run proceeds. -#}
{% macro _take_over_silent_locks(timeout) -%}
  {%- set live = [] -%}
  {%- set released = [] -%}
  {%- set warnings = [] -%}
  {%- for holder in spark_incremental._open_locks(with_state=true) -%}
    {%- if not spark_incremental._lock_is_silent(holder, timeout) or holder.invocation_id == invocation_id -%}
      {%- do live.append(holder) -%}
    {%- else -%}
      {%- set why = 'silent since ' ~ holder.seen_at ~ ' UTC, more than ' ~ spark_incremental._minutes_text(timeout)
          ~ ' (spark_incremental__lock_timeout_minutes): its run was killed' -%}
      {%- do released.append({'model': spark_incremental._lock_model_name(), 'record_type': 'unlock',
                              'state': holder.invocation_id, 'action': 'taken over by ' ~ invocation_id ~ ': ' ~ why}) -%}
      {%- do warnings.append('released the silent manifest lock of invocation ' ~ holder.invocation_id
          ~ ' (started ' ~ holder.locked_at ~ ' UTC, ' ~ why ~ ')') -%}
    {%- endif -%}
  {%- endfor -%}
  {%- do spark_incremental.append_manifest_rows(released) -%}
  {%- for warning in warnings -%}
    {%- do spark_incremental._warn(warning) -%}
  {%- endfor -%}
  {{- return(live) -}}
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

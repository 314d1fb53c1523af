{#- A run that holds the lock: keeping it alive, checking it still holds it, releasing
    it, stopping its start hook (the protocol: acquire_run_lock.sql). -#}


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
  {%- if not execute or not spark_incremental._command_writes() or lock.get('ending') -%}
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


{% macro _release_run_lock() -%}
  {%- do spark_incremental.append_manifest_rows([{'model': spark_incremental._lock_model_name(),
      'record_type': 'unlock', 'state': invocation_id, 'action': 'run ended'}]) -%}
{%- endmacro %}


{#- Release this run's lock while its start hook holds it (from the lock row's append in
    _acquire_run_lock to the end of start_run), once; nothing otherwise (before the lock,
    in a model: the end hook releases it then, or in a run that took none). dbt runs no
    on-run-end hook after a failed on-run-start, so the start hook releases its lock
    itself before an error of the package's stops it (_stop_run) and before a warning
    that dbt raises as an error (_warn). -#}
{% macro _release_start_lock() -%}
  {%- set lock = spark_incremental._run_cache('run_lock') -%}
  {%- if lock.get('start_hook') -%}
    {%- do lock.pop('start_hook') -%}
    {%- do spark_incremental._release_run_lock() -%}
  {%- endif -%}
{%- endmacro %}


{#- Stop the run with message, the one way the package's errors stop a start hook that
    holds the run lock: its lock is released first (_release_start_lock), or it would
    refuse every run until silent for lock_timeout_minutes. A Spark error cannot be
    caught: its lock stays (README, Limitations). -#}
{% macro _stop_run(message) -%}
  {%- do spark_incremental._release_start_lock() -%}
  {%- do exceptions.raise_compiler_error(message) -%}
{%- endmacro %}

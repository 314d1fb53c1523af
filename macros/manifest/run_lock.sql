{#- A run lock on the manifest, built on the append-only log: one events pipeline run at
    a time.

    - A run appends a 'lock' row (state = its invocation id), then reads the open locks
      (a 'lock' row and no 'unlock' row for the same invocation). The oldest live lock
      wins; a run that loses appends its 'unlock' row and stops, naming the holder.
    - The run reads the locks only once its own lock row's stamp is a settle delay old
      (it waits for what is left of the delay after its append), so a lock stamped
      earlier but committed later (two runs started at the same moment) is seen: the run
      that finds an older lock backs off. The winner is decided by what is committed.
    - A running run keeps its lock alive: once a third of lock_timeout_minutes has passed
      since the run started, every model and interval batch appends a heartbeat ('lock'
      row, action 'heartbeat'). A lock whose newest row is older than
      spark_incremental__lock_timeout_minutes is silent: its run was killed. The next run
      releases it, says whose lock it took over and why, and proceeds.
    - update_manifest appends the run's 'unlock' row at the end;
      spark_incremental__force_unlock releases every open lock at once. -#}
{% macro _lock_model_name() -%}
  {{- return('__spark_incremental_run_lock__') -}}
{%- endmacro %}


{#- How long after its own lock row's stamp a run reads the locks (seconds): longer than
    an append takes to commit on a busy server. -#}
{% macro _lock_settle_seconds() -%}
  {{- return(2) -}}
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
  {#- the lock row's written_at: the first row's stamp, then a microsecond per row -#}
  {%- set stamped = modules.datetime.datetime.utcnow() -%}
  {%- do spark_incremental.append_manifest_rows(rows, stamped) -%}
  {%- set lock_stamp = stamped + modules.datetime.timedelta(microseconds=rows | length - 1) -%}

  {#- every lock stamped before ours has committed a settle delay after its stamp: read
      once that much time has passed since ours (the append's own time counts) -#}
  {%- set ready_at = lock_stamp + modules.datetime.timedelta(seconds=spark_incremental._lock_settle_seconds()) -%}
  {%- set wait_ms = ((ready_at - modules.datetime.datetime.utcnow()).total_seconds() * 1000) | round(0, 'ceil') | int -%}
  {%- if wait_ms > 0 -%}
    {%- do spark_incremental._fetch_rows("select reflect('java.lang.Thread', 'sleep', cast(" ~ wait_ms ~ " as bigint))") -%}
  {%- endif -%}
  {%- set live = spark_incremental._take_over_silent_locks(timeout) -%}
  {%- if live[0].invocation_id != invocation_id -%}
    {%- do spark_incremental._release_run_lock() -%}
    {%- set holder = live[0] -%}
    {%- do exceptions.raise_compiler_error(
        "spark_incremental: another dbt run (invocation " ~ holder.invocation_id ~ ", started "
        ~ holder.locked_at ~ " UTC, last seen " ~ holder.seen_at ~ " UTC) holds the manifest lock;"
        ~ " this run changed nothing. A running run keeps its lock alive; if that run is dead, the"
        ~ " next run takes its lock over once it has been silent for " ~ timeout ~ " minutes"
        ~ " (spark_incremental__lock_timeout_minutes), or run again now with"
        ~ " --vars '{spark_incremental__force_unlock: true}' if you are sure it is dead.") -%}
  {%- endif -%}
{%- endmacro %}


{#- Release the open locks that have been silent for longer than the timeout (one
    append, with a warning per lock naming it), and return the live ones, oldest first
    (this run's own lock is among them). -#}
{% macro _take_over_silent_locks(timeout) -%}
  {%- set now = modules.datetime.datetime.utcnow() -%}
  {%- set since = (now - modules.datetime.timedelta(minutes=timeout)).strftime('%Y-%m-%d %H:%M:%S.%f') -%}
  {%- set live = [] -%}
  {%- set released = [] -%}
  {%- for holder in spark_incremental._open_locks() -%}
    {%- if holder.seen_at > since or holder.invocation_id == invocation_id -%}
      {%- do live.append(holder) -%}
    {%- else -%}
      {%- set why = 'silent since ' ~ holder.seen_at ~ ' UTC, more than ' ~ timeout
          ~ ' minutes (spark_incremental__lock_timeout_minutes): its run was killed' -%}
      {%- do released.append({'model': spark_incremental._lock_model_name(), 'record_type': 'unlock',
                              'state': holder.invocation_id, 'action': 'taken over by ' ~ invocation_id ~ ': ' ~ why}) -%}
      {%- do spark_incremental._warn('took over the manifest lock of invocation ' ~ holder.invocation_id
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


{#- Keep this run's lock alive in a long run: once a third of the timeout has passed since
    the run started, append a heartbeat. Called at every model that reads the run limits,
    every managed_incremental model and every interval batch. Costs nothing in a short run. -#}
{% macro _keep_run_lock() -%}
  {%- if not execute or flags.WHICH not in ['run', 'build'] -%}
    {{- return(none) -}}
  {%- endif -%}
  {%- set started = run_started_at.replace(tzinfo=none) -%}
  {%- set elapsed = modules.datetime.datetime.utcnow() - started -%}
  {%- if elapsed.total_seconds() >= spark_incremental._lock_timeout_minutes() * 20 -%}
    {%- do spark_incremental.append_manifest_rows([{'model': spark_incremental._lock_model_name(),
        'record_type': 'lock', 'state': invocation_id, 'action': 'heartbeat'}]) -%}
  {%- endif -%}
{%- endmacro %}


{#- Open locks, oldest first: per invocation with 'lock' rows and no 'unlock' row, when
    it took the lock (locked_at) and when it last wrote a lock row (seen_at), as
    'yyyy-MM-dd HH:mm:ss.SSSSSS' text. -#}
{% macro _open_locks() -%}
  {%- set relation = spark_incremental.ensure_manifest_log() -%}
  {%- set sql -%}
    with

    lock_rows as (
        select * from {{ relation }}
        where model = {{ spark_incremental._quote(spark_incremental._lock_model_name()) }}
    ),

    -- one aggregation (one shuffle): per run, its first and last lock row and whether it unlocked
    holders as (
        select
            state as holder,
            min(case when record_type = 'lock' then written_at end) as locked_at,
            max(case when record_type = 'lock' then written_at end) as seen_at,
            max(case when record_type = 'unlock' then 1 else 0 end) as unlocked
        from lock_rows
        group by state
    ),

    final as (
        select
            holder,
            date_format(locked_at, 'yyyy-MM-dd HH:mm:ss.SSSSSS') as locked_at,
            date_format(seen_at, 'yyyy-MM-dd HH:mm:ss.SSSSSS') as seen_at
        from holders
        where
            unlocked = 0
            and locked_at is not null
    )

    select * from final
    order by locked_at, holder
  {%- endset -%}
  {%- set holders = [] -%}
  {%- for row in spark_incremental._fetch_rows(sql) -%}
    {%- do holders.append({'invocation_id': row[0], 'locked_at': row[1], 'seen_at': row[2]}) -%}
  {%- endfor -%}
  {{- return(holders) -}}
{%- endmacro %}

{#- A run lock on the manifest, built on the append-only log: one events pipeline run at
    a time. Each run appends a 'lock' row; the earliest live lock wins; a run that loses
    appends its 'unlock' row and stops with a message naming the run that holds the lock.
    update_manifest appends the 'unlock' row at the end. A lock older than
    spark_incremental__lock_timeout_minutes is dead (its run was killed);
    spark_incremental__force_unlock releases every lock at once. -#}
{% macro _lock_model_name() -%}
  {{- return('__spark_incremental_run_lock__') -}}
{%- endmacro %}


{% macro _acquire_run_lock() -%}
  {%- set name = spark_incremental._lock_model_name() -%}
  {%- set now = modules.datetime.datetime.utcnow() -%}
  {%- if spark_incremental.get_config_var('force_unlock') -%}
    {%- set unlocks = [] -%}
    {%- for holder in spark_incremental._live_locks(now) -%}
      {%- do unlocks.append({'model': name, 'record_type': 'unlock', 'state': holder.invocation_id,
                             'action': 'released by spark_incremental__force_unlock'}) -%}
    {%- endfor -%}
    {%- do spark_incremental.append_manifest_rows(unlocks) -%}
    {%- if unlocks | length > 0 -%}
      {%- do spark_incremental._log('force_unlock: released ' ~ unlocks | length ~ ' lock(s)') -%}
    {%- endif -%}
  {%- endif -%}
  {%- do spark_incremental.append_manifest_rows([{'model': name, 'record_type': 'lock', 'state': invocation_id,
                                                  'action': 'run started'}]) -%}
  {%- set holders = spark_incremental._live_locks(now) -%}
  {%- if holders | length > 0 and holders[0].invocation_id != invocation_id -%}
    {%- do spark_incremental._release_run_lock() -%}
    {%- set holder = holders[0] -%}
    {%- set timeout = spark_incremental.get_config_var('lock_timeout_minutes') -%}
    {%- do exceptions.raise_compiler_error(
        "spark_incremental: another dbt run (invocation " ~ holder.invocation_id ~ ", started "
        ~ holder.written_at ~ " UTC) holds the manifest lock; this run changed nothing. If that run"
        ~ " is dead, its lock expires " ~ timeout ~ " minutes after it started"
        ~ " (spark_incremental__lock_timeout_minutes), or run again with"
        ~ " --vars '{spark_incremental__force_unlock: true}'.") -%}
  {%- endif -%}
{%- endmacro %}


{% macro _release_run_lock() -%}
  {%- do spark_incremental.append_manifest_rows([{'model': spark_incremental._lock_model_name(),
      'record_type': 'unlock', 'state': invocation_id, 'action': 'run ended'}]) -%}
{%- endmacro %}


{#- Live locks, oldest first: lock rows with no unlock row for the same invocation,
    written within the timeout. -#}
{% macro _live_locks(now) -%}
  {%- set relation = spark_incremental.manifest_log_relation() -%}
  {%- if not spark_incremental._relation_exists(relation) -%}
    {{- return([]) -}}
  {%- endif -%}
  {%- set timeout = spark_incremental.get_config_var('lock_timeout_minutes') -%}
  {%- set since = now - modules.datetime.timedelta(minutes=timeout) -%}
  {%- set sql -%}
    with

    lock_rows as (
        select * from {{ relation }}
        where model = {{ spark_incremental._quote(spark_incremental._lock_model_name()) }}
    ),

    -- one aggregation (one shuffle): per run, its lock time and whether it unlocked
    holders as (
        select
            state as holder,
            min(case when record_type = 'lock' then written_at end) as locked_at,
            max(case when record_type = 'unlock' then 1 else 0 end) as unlocked
        from lock_rows
        group by state
    ),

    final as (
        select
            holder,
            date_format(locked_at, 'yyyy-MM-dd HH:mm:ss.SSSSSS') as written_at
        from holders
        where
            unlocked = 0
            and locked_at > {{ spark_incremental._ts_literal(since) }}
    )

    select * from final
    order by written_at, holder
  {%- endset -%}
  {%- set holders = [] -%}
  {%- for row in spark_incremental._fetch_rows(sql) -%}
    {%- do holders.append({'invocation_id': row[0], 'written_at': row[1]}) -%}
  {%- endfor -%}
  {{- return(holders) -}}
{%- endmacro %}

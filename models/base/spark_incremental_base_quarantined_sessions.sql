{#- Appends only: a quarantined session never changes, so each run inserts the sessions
    not quarantined yet (no upsert needed). State: kept on --full-refresh unless
    spark_incremental__allow_refresh is true (like the manifest). -#}
{{
    config(
        materialized='spark_incremental_append',
        file_format='parquet',
        full_refresh=(none if spark_incremental.get_config_var('allow_refresh') else false),
        enabled=spark_incremental._events_enabled(),
    )
}}

{#- Sessions whose capped end reached start + max_session_days (bots that never stop).
    Their events up to the cap are processed in the run that quarantines them; the
    lifecycle manifest never takes them back. A session not quarantined yet and capped
    is in a row the lifecycle upsert wrote in this run: capped in this run, or capped by
    an earlier run whose quarantine did not run (then that run recorded no progress, so
    this run's window holds the session's events again, and the upsert writes its capped
    row again, unchanged). So the quarantine reads only the start_date partitions the
    upsert rewrote in this invocation (a literal list: Spark prunes the others), noted in
    the run cache by the managed_incremental write (_managed_replace). When the lifecycle
    did not upsert in this invocation (not selected, rebuilt, nothing staged), it reads
    back as far as the lifecycle's own scan: rows starting on or after the day of
    lower_limit - session_lookback_days (_session_lookback_start). A first run or a rebuild of this table reads every row. -#}

{%- set session_vars = spark_incremental.validate_session_vars() %}
{%- set limits = spark_incremental.return_limits_from_model(ref('spark_incremental_base_new_event_limits')) %}
{%- set lookback_start = spark_incremental._session_lookback_start(limits.lower_limit, session_vars) %}
{%- set lifecycle_relation = ref('spark_incremental_base_sessions_lifecycle_manifest') %}
{%- set rewritten = none %}
{%- if execute %}
{%- set rewritten = spark_incremental._run_cache('rewritten_partitions').get(lifecycle_relation | string) %}
{%- endif %}
{%- set incremental = spark_incremental.is_incremental() %}
{#- no event since the last run: no session changed, none can have been capped -#}
{%- set has_new_events = not limits.nothing_new %}
{%- if execute and incremental and has_new_events %}
  {%- do spark_incremental._log('quarantine: reads '
      ~ ((rewritten | length ~ ' lifecycle partitions rewritten in this run: ' ~ rewritten | map('first') | map('string') | sort | join(', '))
         if rewritten is not none else "the lifecycle's lookback (it did not upsert in this run)")) -%}
{%- endif %}

with

lifecycle as (
    select * from {{ lifecycle_relation }}
    {%- if not has_new_events or (incremental and rewritten is not none and rewritten | length == 0) %}
    where false
    {%- elif incremental and rewritten is not none %}
    where {{ spark_incremental._managed_partition_predicate([('start_date', 'string')], rewritten, none) }}
    {%- elif incremental %}
    where
        start_tstamp >= {{ spark_incremental._ts_literal(lookback_start) }}
        and start_date >= {{ spark_incremental._quote(lookback_start.strftime('%Y-%m-%d')) }}
    {%- endif %}
),

capped as (
    select
        session_identifier,
        user_identifier,
        start_tstamp,
        end_tstamp
    from lifecycle
    where end_tstamp >= {{ spark_incremental._add_days('start_tstamp', session_vars.max_session_days) }}
),

{%- if incremental %}

already_quarantined as (
    select session_identifier from {{ this }}
),
{%- endif %}

final as (
    select
        capped.session_identifier,
        capped.user_identifier,
        capped.start_tstamp,
        capped.end_tstamp,
        {{ spark_incremental._ts_literal(spark_incremental.now()) }} as quarantined_at
    from capped
    {%- if incremental %}
    left anti join already_quarantined
        on capped.session_identifier = already_quarantined.session_identifier
    {%- endif %}
)

select * from final

{{ config(materialized='spark_incremental_run_table', enabled=spark_incremental._events_enabled()) }}

-- depends_on: {{ ref('spark_incremental_base_quarantined_sessions') }}

{#- The sessions this run processes: every session of the lifecycle manifest that
    overlaps [lower_limit, upper_limit], its end clipped to sessions_until (upper_limit;
    for a restatement the latest processed data, so a session that goes on past the
    restated range is reprocessed whole). A session's
    end is at most start + max_session_days, so start >= lower_limit - max_session_days
    holds for all of them; the filter says so to prune the manifest's partitions. -#}

{%- set session_vars = spark_incremental.validate_session_vars() %}
{%- set limits = spark_incremental.return_limits_from_model(ref('spark_incremental_base_new_event_limits')) %}
{%- set earliest_start = spark_incremental._earliest_session_start(limits.lower_limit, session_vars) %}

with

lifecycle as (
    select * from {{ ref('spark_incremental_base_sessions_lifecycle_manifest') }}
    where
        {{ 'false' if limits.nothing_new else 'true' }}
        and start_tstamp >= {{ spark_incremental._ts_literal(earliest_start) }}
        and start_date >= {{ spark_incremental._quote(earliest_start.strftime('%Y-%m-%d')) }}
        and start_tstamp <= {{ spark_incremental._ts_literal(limits.upper_limit) }}
        and end_tstamp >= {{ spark_incremental._ts_literal(limits.lower_limit) }}
),

final as (
    select
        session_identifier,
        user_identifier,
        start_tstamp,
        least(end_tstamp, {{ spark_incremental._ts_literal(limits.sessions_until) }}) as end_tstamp
    from lifecycle
)

select * from final

{{
    config(
        enabled=var('spark_incremental_bench', false),
        materialized='incremental',
        incremental_strategy='microbatch',
        event_time='start_tstamp',
        batch_size='day',
        lookback=0,
        begin=var('spark_incremental__start_date', '2020-01-01'),
        partition_by=['start_date'],
        file_format='parquet',
        tags=['spark_incremental_bench'],
    )
}}

{#- The same columns as the derived `sessions` model, per day batch, with the same
    event rules as the package's pipeline: the session rules (a session identifier, the
    late-sent filter: sent at most days_late_allowed days after created; the app filter
    when set: spark_incremental._session_event_filter, the package's one copy of them)
    and the dedup on the event identifier (first copy by collector_tstamp, ties broken by
    the content, as events_this_run does), within the day batch. dbt filters the source
    on collector_tstamp for the batch; the partition column is filtered too (as a user
    who knows the table would), so Spark prunes partitions. What it cannot do without
    sessionising: a session that spans midnight is two rows, and no event is dropped for
    lying past its session's start + max_session_days. -#}

{%- set partition_column = var('spark_incremental__events_partition_column', none) %}
{%- set session_vars = spark_incremental.validate_session_vars() %}

with

source_events as (
    select * from {{ source('spark_incremental_bench', 'events') }}
    where
        {{ spark_incremental._session_event_filter(session_vars) }}
        {%- if partition_column and model.batch %}
        and {{ partition_column }} >= to_date('{{ model.batch.event_time_start.strftime("%Y-%m-%d") }}')
        and {{ partition_column }} <= to_date('{{ (model.batch.event_time_end - modules.datetime.timedelta(microseconds=1)).strftime("%Y-%m-%d") }}')
        {%- endif %}
),

tie_broken as (
    select
        *,
        case
            when count(*) over (partition by event_id) > 1 then md5(to_json(struct(*)))
        end as event_tie_breaker
    from source_events
),

ranked as (
    select
        *,
        row_number() over (
            partition by event_id order by collector_tstamp, event_tie_breaker
        ) as event_rank
    from tie_broken
),

events as (
    select * from ranked
    where event_rank = 1
),

sessions as (
    select
        domain_sessionid as session_identifier,
        max(domain_userid) as user_identifier,
        min(app_id) as app_id,
        min(collector_tstamp) as start_tstamp,
        max(collector_tstamp) as end_tstamp,
        count(*) as event_count,
        count_if(event_name = 'page_view') as page_view_count,
        count(distinct case when event_name = 'page_view' then page_url end) as distinct_page_count,
        min(
            case when event_name = 'page_view' then named_struct(
                'collector_tstamp', collector_tstamp, 'event_id', event_id, 'page_url', page_url
            ) end
        ).page_url as landing_page_url,
        max(
            case when event_name = 'page_view' then named_struct(
                'collector_tstamp', collector_tstamp, 'event_id', event_id, 'page_url', page_url
            ) end
        ).page_url as exit_page_url
    from events
    group by domain_sessionid
),

final as (
    select
        session_identifier,
        user_identifier,
        app_id,
        start_tstamp,
        end_tstamp,
        unix_timestamp(end_tstamp) - unix_timestamp(start_tstamp) as duration_seconds,
        event_count,
        page_view_count,
        distinct_page_count,
        landing_page_url,
        exit_page_url,
        to_date(start_tstamp) as start_date
    from sessions
)

select * from final

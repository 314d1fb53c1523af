{{
    config(
        materialized='managed_incremental',
        unique_key='session_identifier',
        partition_by='start_date',
        upsert_date_key='start_date',
        upsert_lookback_days=1,
        file_format='parquet',
        tags=['spark_incremental'],
        skip_without_new_events=true,
    )
}}

{#- One row per session. spark_incremental_base_events_this_run holds every event of
    each session it touches, so each row is recomputed whole and upserted. -#}

with

events as (
    select * from {{ ref('spark_incremental_base_events_this_run') }}
    where {{ spark_incremental.is_run_with_new_events(this.name) }}
),

sessions as (
    select
        session_identifier,
        max(user_identifier) as user_identifier,
        min(app_id) as app_id,
        min(collector_tstamp) as start_tstamp,
        max(collector_tstamp) as end_tstamp,
        count(*) as event_count,
        count_if(event_name = 'page_view') as page_view_count,
        count(distinct case when event_name = 'page_view' then page_url end) as distinct_page_count,
        -- landing and exit page: first and last page view (ties broken by event_id)
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
    group by session_identifier
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
        date_format(start_tstamp, 'yyyy-MM-dd') as start_date
    from sessions
)

select * from final

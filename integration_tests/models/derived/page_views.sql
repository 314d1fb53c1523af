{{
    config(
        materialized='managed_incremental',
        unique_key='page_view_id',
        partition_by='page_view_date',
        upsert_date_key='page_view_date',
        upsert_lookback_days=1,
        file_format='parquet',
        tags=['spark_incremental'],
        skip_without_new_events=true,
    )
}}

{#- One row per page_view event, with its position in the session: the whole session
    is in spark_incremental_base_events_this_run, so the positions are right even when a
    late event lands in the middle of a session. -#}

with

events as (
    select * from {{ ref('spark_incremental_base_events_this_run') }}
    where {{ spark_incremental.is_run_with_new_events(this.name) }}
),

page_view_events as (
    select * from events
    where event_name = 'page_view'
),

positioned as (
    select
        event_id as page_view_id,
        session_identifier,
        user_identifier,
        app_id,
        page_url,
        collector_tstamp as page_view_tstamp,
        row_number() over (
            partition by session_identifier
            order by collector_tstamp, event_id
        ) as page_view_in_session_index,
        count(*) over (partition by session_identifier) as page_views_in_session,
        lead(collector_tstamp) over (
            partition by session_identifier
            order by collector_tstamp, event_id
        ) as next_page_view_tstamp
    from page_view_events
),

final as (
    select
        page_view_id,
        session_identifier,
        user_identifier,
        app_id,
        page_url,
        page_view_tstamp,
        page_view_in_session_index,
        page_views_in_session,
        unix_timestamp(next_page_view_tstamp) - unix_timestamp(page_view_tstamp) as seconds_to_next_page_view,
        date_format(page_view_tstamp, 'yyyy-MM-dd') as page_view_date
    from positioned
)

select * from final

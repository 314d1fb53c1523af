{{ config(materialized='table', tags=['spark_incremental']) }}

with

events as (
    select * from {{ ref('spark_incremental_base_events_this_run') }}
),

final as (
    select
        to_date(collector_tstamp) as event_date,
        count(*) as event_count
    from events
    group by to_date(collector_tstamp)
)

select * from final

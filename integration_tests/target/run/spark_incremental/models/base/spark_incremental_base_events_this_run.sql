
  
    
        create table manual_t.spark_incremental_base_events_this_run
      
      
    using parquet
      
      
      
      
      
      

      as
      

with

events_in_window as (
    select *
    from manual_t.events
    where
        collector_tstamp >= timestamp'2021-01-02 04:00:00'
        and collector_tstamp <= timestamp'2021-01-03 10:00:00'
),

ranked as (
    select
        *,
        row_number() over (
            partition by event_id
            order by collector_tstamp, md5(to_json(struct(*)))
        ) as event_rank
    from events_in_window
),

final as (
    select
        event_id,
        domain_sessionid,
        domain_userid,
        collector_tstamp,
        dvce_created_tstamp,
        dvce_sent_tstamp,
        load_tstamp,
        app_id
    from ranked
    where event_rank = 1
)

select * from final
  
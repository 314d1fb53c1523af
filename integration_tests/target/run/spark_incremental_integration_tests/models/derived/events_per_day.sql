
  
    
        create table manual_t.events_per_day
      
      
      
      
      
      
      
      

      as
      

with

events as (
    select * from manual_t.spark_incremental_base_events_this_run
),

final as (
    select
        to_date(collector_tstamp) as event_date,
        count(*) as event_count
    from events
    group by to_date(collector_tstamp)
)

select * from final
  
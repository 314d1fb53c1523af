create or replace view spark_incremental_it.smoke
  
  
  as
    select 1 as x

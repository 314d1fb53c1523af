

-- depends_on: manual_t.spark_incremental_manifest

with

limits as (
    select
        timestamp'2021-01-02 04:00:00' as lower_limit,
        timestamp'2021-01-03 10:00:00' as upper_limit,
        4 as state,
        'standard incremental run' as state_description,
        '' as new_models,
        timestamp'2021-01-10 00:00:00' as calculated_at
),

final as (
    select * from limits
)

select * from final
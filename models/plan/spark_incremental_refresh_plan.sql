{{
    config(
        materialized='incremental',
        incremental_strategy='append',
        file_format='parquet',
        partition_by=['batch_id'],
        full_refresh=spark_incremental.get_config_var('allow_refresh'),
    )
}}

with

final as (
    {{ spark_incremental._refresh_plan_empty_select() }}
)

select * from final

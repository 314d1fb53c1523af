{{
    config(
        materialized='spark_incremental_state_table',
        partition_by=['batch_id'],
        full_refresh=(none if spark_incremental.get_config_var('allow_refresh') else false),
        meta={'forgets': 'the refresh plans recorded so far (no model state)'},
    )
}}

with

final as (
    {{ spark_incremental._typed_empty_select(spark_incremental._refresh_plan_columns()) }}
)

select * from final

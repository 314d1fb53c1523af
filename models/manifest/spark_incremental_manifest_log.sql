{#- full_refresh: false keeps the log on --full-refresh; none lets the flag decide. -#}
{{
    config(
        materialized='spark_incremental_state_table',
        partition_by=['batch_id'],
        options={'partitionOverwriteMode': 'dynamic'},
        full_refresh=(none if spark_incremental.get_config_var('allow_refresh') else false),
    )
}}

{{ spark_incremental._typed_empty_select(spark_incremental._manifest_columns()) }}

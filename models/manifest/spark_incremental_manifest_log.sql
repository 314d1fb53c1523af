{{
    config(
        materialized='spark_incremental_state_table',
        full_refresh=spark_incremental.get_config_var('allow_refresh'),
    )
}}

{{ spark_incremental._manifest_empty_select() }}

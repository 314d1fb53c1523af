{{ config(materialized='spark_incremental_state_view') }}

{{ spark_incremental._manifest_current_sql(ref('spark_incremental_manifest_log')) }}

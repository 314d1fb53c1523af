{{ config(materialized='view') }}

{{ spark_incremental._manifest_current_sql(ref('spark_incremental_manifest_log')) }}

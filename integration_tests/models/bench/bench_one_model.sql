{{ config(materialized='table', enabled=var('spark_incremental_bench', false), tags=['spark_incremental_bench']) }}

select 1 as one

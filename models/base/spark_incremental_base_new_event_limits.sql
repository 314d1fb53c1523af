{{ config(materialized='view', enabled=spark_incremental._events_enabled()) }}

-- depends_on: {{ ref('spark_incremental_manifest') }}

{%- set limits = spark_incremental.get_run_limits() %}
{%- set last_success_json = spark_incremental._last_success_json(limits.get('last_success_by_model', {})) %}
{#- the models and hooks of this run read these limits from here, not from the view -#}
{%- do spark_incremental._keep_run_limits(this, limits, last_success_json) %}

with

limits as (
    select
        {{ spark_incremental._ts_literal(limits.lower_limit) }} as lower_limit,
        {{ spark_incremental._ts_literal(limits.upper_limit) }} as upper_limit,
        {{ limits.state }} as state,  -- noqa: RF04
        {{ spark_incremental._quote(limits.description) }} as state_description,
        {{ spark_incremental._quote(limits.new_models | join(',')) }} as new_models,
        {{ spark_incremental._quote(last_success_json) }} as last_success_by_model,
        {{ 'true' if limits.get('nothing_new') else 'false' }} as nothing_new,
        {{ spark_incremental._ts_literal(limits.sessions_until) }} as sessions_until,
        {{ spark_incremental._ts_literal(spark_incremental.now()) }} as calculated_at
),

final as (
    select * from limits
)

select * from final

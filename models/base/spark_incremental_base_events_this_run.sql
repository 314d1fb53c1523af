{{ config(materialized='table') }}

{%- set limits = spark_incremental.return_limits_from_model(ref('spark_incremental_base_new_event_limits')) %}
{%- set session_timestamp = spark_incremental.get_config_var('session_timestamp') %}
{%- set events = source('spark_incremental_events', 'events') %}
{%- set columns = spark_incremental._event_columns(events) %}

with

events_in_window as (
    select *
    from {{ events }}
    where
        {{ spark_incremental.events_window_filter(limits.lower_limit, limits.upper_limit) }}
),

ranked as (
    select
        *,
        row_number() over (
            partition by event_id
            order by {{ session_timestamp }}, md5(to_json(struct(*)))
        ) as event_rank
    from events_in_window
),

final as (
    select
        {%- for column in columns %}
        {{ column }}{{ ',' if not loop.last }}
        {%- endfor %}
    from ranked
    where event_rank = 1
)

select * from final

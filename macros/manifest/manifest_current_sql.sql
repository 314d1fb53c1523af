{#- The current state, one row per model, as a pure function of the append-only log:
    last_success is the max over 'events' rows written after the model's latest
    'remove' row (so it never moves backwards); the managed state is the latest
    'managed' row. -#}
{% macro _manifest_current_sql(log_relation) -%}
with

log as (
    select * from {{ log_relation }}
),

removals as (
    select
        model,
        max(written_at) as removed_at
    from log
    where record_type = 'remove'
    group by model
),

events_state as (
    select
        log.model,
        max(log.last_success) as last_success,
        max(log.written_at) as events_written_at
    from log
    left join removals on log.model = removals.model
    where
        log.record_type = 'events'
        and (removals.removed_at is null or log.written_at > removals.removed_at)
    group by log.model
),

managed_ranked as (
    select
        *,
        row_number() over (partition by model order by written_at desc) as recency
    from log
    where record_type = 'managed'
),

managed_state as (
    select
        model,
        mutability_type,
        last_refresh,
        high_water_mark,
        high_water_mark_type,
        state,
        action,
        written_at as managed_written_at
    from managed_ranked
    where recency = 1
),

final as (
    select
        coalesce(events_state.model, managed_state.model) as model,
        events_state.last_success,
        managed_state.mutability_type,
        managed_state.last_refresh,
        managed_state.high_water_mark,
        managed_state.high_water_mark_type,
        managed_state.state,
        managed_state.action as last_action,
        greatest(
            coalesce(events_state.events_written_at, managed_state.managed_written_at),
            coalesce(managed_state.managed_written_at, events_state.events_written_at)
        ) as updated_at
    from events_state
    full outer join managed_state on events_state.model = managed_state.model
)

select * from final
{%- endmacro %}

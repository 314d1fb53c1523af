{#- The current state, one row per model, as a pure function of the append-only log:
    last_success is the max over 'events' rows written after the model's latest
    'remove' row (so it never moves backwards); the managed state is the latest
    'managed' row.
    log_facts: every row also carries two facts of the whole log, from the same scan
    (each further scan of the log lists its partitions again, with a Spark job once
    there are more than 32 of them): log_load_watermark, the newest load watermark
    (_load_watermark), and log_partition_count, the log's partition count
    (compact_manifest).
    lock_holders: the run lock's rows come out too, one per holder (the invocation id in
    their state column): holder, locked_at (its first 'lock' row), seen_at (its newest)
    and unlocked (1 once it has an 'unlock' row); state rows have a null holder. The run
    lock reads its locks and the state in one scan of the log this way (_open_locks). -#}
{% macro _manifest_current_sql(log_relation, log_facts=false, lock_holders=false) -%}
with

log as (
    -- each row knows its model's latest removal; one shuffle, on model, serves both this
    -- window and the aggregation below
    select
        *,
        {%- if lock_holders %}
        case when model = {{ spark_incremental._quote(spark_incremental._lock_model_name()) }} then state end as holder,
        {%- endif %}
        max(case when record_type = 'remove' then written_at end) over (partition by model) as removed_at
        {%- if log_facts %},
        {{ spark_incremental._load_watermark_aggregate() }} over () as log_load_watermark,
        size(collect_set(batch_id) over ()) as log_partition_count
        {%- endif %}
    from {{ log_relation }}
),

tagged as (
    select
        *,
        -- an 'events' row counts when written after the model's latest removal
        case
            when record_type = 'events' and (removed_at is null or written_at > removed_at) then written_at
        end as events_written_at,
        case when record_type = 'managed' then written_at end as managed_written_at
    from log
),

by_model as (
    select
        model,
        max(case when events_written_at is not null then last_success end) as last_success,
        max(events_written_at) as events_written_at,
        -- the latest 'managed' row (max_by skips rows whose ordering is null)
        max_by(
            named_struct(
                'mutability_type', mutability_type,
                'last_refresh', last_refresh,
                'high_water_mark', high_water_mark,
                'high_water_mark_type', high_water_mark_type,
                'state', state,
                'action', action
            ),
            managed_written_at
        ) as managed,
        max(managed_written_at) as managed_written_at
        {%- if lock_holders %},
        holder,
        min(case when record_type = 'lock' then written_at end) as locked_at,
        max(case when record_type = 'lock' then written_at end) as seen_at,
        max(case when record_type = 'unlock' then 1 else 0 end) as unlocked
        {%- endif %}
        {%- if log_facts %},
        max(log_load_watermark) as log_load_watermark,
        max(log_partition_count) as log_partition_count
        {%- endif %}
    from tagged
    group by model{{ ', holder' if lock_holders }}
),

final as (
    select
        model,
        last_success,
        managed.mutability_type,
        managed.last_refresh,
        managed.high_water_mark,
        managed.high_water_mark_type,
        managed.state,
        managed.action as last_action,
        greatest(events_written_at, managed_written_at) as updated_at
        {%- if log_facts %},
        log_load_watermark,
        log_partition_count
        {%- endif %}
        {%- if lock_holders %},
        holder,
        locked_at,
        seen_at,
        unlocked
        {%- endif %}
    from by_model
    where
        events_written_at is not null
        or managed_written_at is not null
        {%- if lock_holders %}
        or holder is not null
        {%- endif %}
)

select * from final
{%- endmacro %}

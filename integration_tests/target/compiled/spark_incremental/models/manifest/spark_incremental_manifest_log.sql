

select
    cast(null as string) as model,
    cast(null as string) as record_type,
    cast(null as timestamp) as last_success,
    cast(null as string) as mutability_type,
    cast(null as timestamp) as last_refresh,
    cast(null as string) as high_water_mark,
    cast(null as string) as high_water_mark_type,
    cast(null as string) as state,
    cast(null as string) as action,
    cast(null as string) as invocation_id,
    cast(null as timestamp) as written_at,
    cast(null as string) as batch_id
where false
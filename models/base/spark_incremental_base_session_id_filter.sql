{#- A Bloom filter of the ids of old lifecycle rows, so the lifecycle manifest reads only
    its recent rows plus the old rows of ids it may have seen (docs/sessions.md, "Why the
    scan stays flat"). Rows: one per 4 KB bitmap (bucket_id >= 0) and one state row
    (bucket_id = -1) with covers_before = F. Invariant: every lifecycle row whose start_date
    < F has its session_identifier in the filter (more ids only cost a lookup).
    Each run with new events, before the lifecycle: R = the date of the window's earliest
    session timestamp minus max_session_days. R - F >= session_filter_step_days (or no
    filter of this size): the ids of the lifecycle rows starting in [F, R) (and of a
    pending lifecycle apply table, left by a killed run) are added, F = R; F > R: F = R,
    nothing read; 0 <= R - F < the step: nothing written (skip_write: the run skips the
    write, no stage and no state row), the lifecycle reads [F, R) as recent rows.
    Written whole through the managed_incremental upsert (a kill leaves the old or the new
    filter). -#}
{{
    config(
        materialized='managed_incremental',
        unique_key='bucket_id',
        file_format='parquet',
        skip_without_new_events=true,
        enabled=spark_incremental._events_enabled(),
    )
}}

{%- set session_vars = spark_incremental.validate_session_vars() %}
{%- set settings = spark_incremental._session_filter_settings() %}
{%- set limits = spark_incremental.return_limits_from_model(ref('spark_incremental_base_new_event_limits')) %}
{%- set window_events = ref('spark_incremental_base_events_in_window') %}
{#- the filter as it stands (none: missing, or a --full-refresh of it): read before the
    run's plan is computed, so that skip_write below can still skip the write -#}
{%- set prior = none if should_full_refresh() else spark_incremental._existing_model_relation(model.name) %}
{%- set lifecycle = spark_incremental._existing_model_relation('spark_incremental_base_sessions_lifecycle_manifest') %}
{#- F moves forward in steps of session_filter_step_days: while R - F is less, the filter is
    not rewritten (F <= R still holds, so the invariant does) and the lifecycle reads the
    days [F, R) as part of its recent region; F > R (R moved back) is written at once -#}
{%- set step_days = spark_incremental.get_config_var('session_filter_step_days') %}
{%- set state = {'covers_before': none, 'reaches_back': none} %}
{%- if not limits.nothing_new %}
{#- on a day the filter is kept as it is, the same query also looks up the lifecycle's
    ids in it, for the lifecycle (_session_filter_region): one query fewer -#}
{%- set ids_sql = spark_incremental._session_filter_window_ids(window_events,
    spark_incremental._existing_model_relation('spark_incremental_base_quarantined_sessions'), session_vars) %}
{%- set state = spark_incremental._session_filter_state(
    prior, window_events, session_vars, settings,
    candidates_of=ids_sql if prior is not none else none, probe_if_kept_days=step_days) %}
{%- if state.get('probed') %}
{%- do spark_incremental._run_cache('session_filter_probe').update(
    {spark_incremental._session_filter_probe_key(prior, ids_sql): state}) %}
{%- endif %}
{%- endif %}
{%- set covers_before = state.covers_before %}
{%- set reaches_back = state.reaches_back %}
{%- set lag_days = spark_incremental._session_filter_lag(covers_before, reaches_back) %}
{%- set write = reaches_back is not none
    and not spark_incremental._session_filter_kept(covers_before, reaches_back, step_days) %}
{%- if prior is not none and not write %}
{%- do spark_incremental.skip_write('the filter already covers the sessions starting before ' ~ (covers_before or 'nothing')
    ~ (', this run needs no more' if not lag_days else
       '; this run could move that to ' ~ reaches_back ~ ' (' ~ lag_days ~ ' day' ~ ('s' if lag_days != 1 else '')
       ~ '), less than spark_incremental__session_filter_step_days (' ~ step_days ~ '): the lifecycle reads those days'
       ~ ' as recent rows')) %}
{%- endif %}
{%- set catch_up = write and lifecycle is not none and (covers_before is none or covers_before < reaches_back) %}
{%- set pending = none %}
{%- if catch_up %}
{%- set pending = spark_incremental._managed_exists(spark_incremental._managed_sibling(lifecycle, '__si_apply')) %}
{%- endif %}
{%- if execute and reaches_back is not none %}
{%- do spark_incremental._log('session id filter: '
      ~ ('covers sessions starting before ' ~ covers_before ~ '; ' if covers_before is not none
         else 'none of ' ~ settings.buckets ~ ' buckets yet; ')
      ~ ('unchanged' if not write
         else 'adds the ids of lifecycle rows starting in [' ~ (covers_before or 'the first') ~ ', ' ~ reaches_back ~ ')'
              ~ (' and of the pending lifecycle apply table' if pending is not none else '')
              ~ ', now covers before ' ~ reaches_back if catch_up
         else 'now covers before ' ~ reaches_back ~ ' (nothing to add)')) -%}
{%- endif %}

with

{%- if not write %}

final as (
    select
        cast(null as int) as bucket_id,
        cast(null as binary) as bits,
        cast(null as bigint) as filter_bits,
        cast(null as string) as covers_before
    where false
)
{%- else %}

{%- if catch_up %}

caught_up_ids as (
    select session_identifier
    from {{ lifecycle }}
    where
        start_date < {{ spark_incremental._quote(reaches_back) }}
        {%- if covers_before is not none %}
        and start_date >= {{ spark_incremental._quote(covers_before) }}
        {%- endif %}
    {%- if pending is not none %}
    union all
    select session_identifier
    from {{ pending }}
    where
        not __si_marker
        and start_date < {{ spark_incremental._quote(reaches_back) }}
        {%- if covers_before is not none %}
        and start_date >= {{ spark_incremental._quote(covers_before) }}
        {%- endif %}
    {%- endif %}
),

probes as (
    {{ spark_incremental._session_filter_probes('select session_identifier from caught_up_ids', settings) | indent(4) }}
),
{%- endif %}

bitmaps as (
    {%- if covers_before is not none %}
    select
        bucket_id,
        bits
    from {{ this }}
    where bucket_id >= 0 and filter_bits = {{ settings.total_bits }}
    {%- else %}
    select
        cast(null as int) as bucket_id,
        cast(null as binary) as bits
    where false
    {%- endif %}
    {%- if catch_up %}
    union all
    select
        bucket_id,
        bitmap_construct_agg(bit_position) as bits
    from probes
    group by bucket_id
    {%- endif %}
),

final as (
    select
        bucket_id,
        bitmap_or_agg(bits) as bits,
        cast({{ settings.total_bits }} as bigint) as filter_bits,
        {{ spark_incremental._quote(reaches_back) }} as covers_before
    from bitmaps
    group by bucket_id
    union all
    select
        -1 as bucket_id,
        cast(null as binary) as bits,
        cast({{ settings.total_bits }} as bigint) as filter_bits,
        {{ spark_incremental._quote(reaches_back) }} as covers_before
)
{%- endif %}

select * from final

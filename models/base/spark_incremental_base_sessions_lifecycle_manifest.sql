{#- Upsert on session_identifier, partitioned by the start date as 'yyyy-MM-dd' text
    (Hive metastores, Derby in particular, fail to filter DATE partition columns; text
    partitions are filtered everywhere). A session's start only moves back (late events),
    and previous_sessions finds every old row of the run's ids (below), so a staged row
    starts on or before the row it replaces: the upsert looks for existing keys only in
    partitions on or after the new rows' earliest start_date (upsert_lookback_days = 0).
    State: kept on --full-refresh unless spark_incremental__allow_refresh is true. When no
    event arrived since the last run (an empty window) the run is skipped whole.
    on_schema_change append_new_columns: a table written before user_tstamp existed gains
    the column in its next run (its old rows hold null there: see merged). -#}
{{
    config(
        materialized='managed_incremental',
        unique_key='session_identifier',
        partition_by='start_date',
        upsert_date_key='start_date',
        upsert_lookback_days=0,
        file_format='parquet',
        full_refresh=(none if spark_incremental.get_config_var('allow_refresh') else false),
        skip_without_new_events=true,
        on_schema_change='append_new_columns',
        enabled=spark_incremental._events_enabled(),
    )
}}

{#- One row per session: its first and last session timestamp (capped at start +
    max_session_days), its user and the session timestamp of the event that gave it. Each
    run merges the sessions that have events in [lower_limit, upper_limit]
    (spark_incremental_base_events_in_window) with this table's own rows (start on or
    after the day of lower_limit - session_lookback_days: _session_lookback_start) and
    upserts them. Of those rows it reads only the
    recent ones (start_date >= F, the session id filter's covers_before) and the older ones
    whose id is a candidate: a window session whose bits are all set in the filter
    (docs/sessions.md, "Why the scan stays flat"). Sessions quarantined by earlier runs are
    skipped; the quarantine table is read without ref() because it is built after this
    model in the same run. A capped session not quarantined yet keeps its row as it is,
    written again, so the quarantine (which reads only the partitions rewritten in this
    run) finds it. -#}

{%- set session_vars = spark_incremental.validate_session_vars() %}
{%- set limits = spark_incremental.return_limits_from_model(ref('spark_incremental_base_new_event_limits')) %}
{%- set lookback_start = spark_incremental._session_lookback_start(limits.lower_limit, session_vars) %}
{%- set quarantined = spark_incremental._existing_model_relation('spark_incremental_base_quarantined_sessions') %}
{%- set id_filter = ref('spark_incremental_base_session_id_filter') %}
{%- set window_events = ref('spark_incremental_base_events_in_window') %}
{%- set lookback_date = lookback_start.strftime('%Y-%m-%d') %}
{#- the end of a session's events (start + max_session_days), which bounds its user too -#}
{%- set session_cap = spark_incremental._add_days('bounds.start_tstamp', session_vars.max_session_days) %}
{#- a table written before user_tstamp existed: read as null until this run adds it -#}
{%- set has_user_tstamp = spark_incremental.is_incremental()
    and spark_incremental._relation_has_column(this, 'user_tstamp') %}
{#- the recent region starts at filter_from (none: no usable filter, the whole lookback is
    read as one region); candidates: the ids read in the old region, none: all of it -#}
{%- set region = spark_incremental._session_filter_region(id_filter, window_events, quarantined, session_vars,
    lookback_date, spark_incremental.is_incremental() and not limits.nothing_new) %}
{%- set old_region = region.filter_from is not none and region.filter_from > lookback_date
      and (region.candidates is none or region.candidates | length > 0) %}

with

events_in_window as (
    select
        {{ adapter.quote(session_vars.session_identifier) }} as session_identifier,
        {{ adapter.quote(session_vars.user_identifier) }} as user_identifier,
        {{ adapter.quote(session_vars.session_timestamp) }} as session_tstamp
    from {{ ref('spark_incremental_base_events_in_window') }}
),

new_sessions as (
    select
        session_identifier,
        min(session_tstamp) as start_tstamp,
        max(session_tstamp) as end_tstamp
    from events_in_window
    group by session_identifier
),

{%- if quarantined is not none %}

quarantined_sessions as (
    select session_identifier from {{ quarantined }}
),
{%- endif %}

new_sessions_to_track as (
    select new_sessions.*
    from new_sessions
    {%- if quarantined is not none %}
    left anti join quarantined_sessions
        on new_sessions.session_identifier = quarantined_sessions.session_identifier
    {%- endif %}
),

previous_sessions as (
    {%- if spark_incremental.is_incremental() %}
    select
        session_identifier,
        user_identifier,
        {{ 'user_tstamp' if has_user_tstamp else 'cast(null as timestamp) as user_tstamp' }},
        start_tstamp,
        end_tstamp,
        end_tstamp >= {{ spark_incremental._add_days('start_tstamp', session_vars.max_session_days) }} as is_capped
    from {{ this }}
    where
        start_tstamp >= {{ spark_incremental._ts_literal(lookback_start) }}
        {%- if not old_region %}
        and start_date >= {{ spark_incremental._quote([region.filter_from or lookback_date, lookback_date] | max) }}
        {%- else %}
        and start_date >= {{ spark_incremental._quote(lookback_date) }}
        {%- if region.candidates is not none %}
        -- older than the recent region: only the ids the session id filter may hold
        and (
            start_date >= {{ spark_incremental._quote(region.filter_from) }}
            or session_identifier in (
                {%- for candidate in region.candidates %}
                {{ spark_incremental._quote(candidate) }}{{ ',' if not loop.last }}
                {%- endfor %}
            )
        )
        {%- endif %}
        {%- endif %}
    {%- else %}
    select
        cast(null as string) as session_identifier,
        cast(null as string) as user_identifier,
        cast(null as timestamp) as user_tstamp,
        cast(null as timestamp) as start_tstamp,
        cast(null as timestamp) as end_tstamp,
        false as is_capped
    where false
    {%- endif %}
),

bounds as (
    select
        new_sessions_to_track.session_identifier,
        previous_sessions.is_capped,
        previous_sessions.user_identifier as previous_user,
        -- a row written before user_tstamp existed counts from its start (a lower bound of
        -- its user's event), and keeps that bound as its user_tstamp: a later run must not
        -- compare with a start a late event moved back
        coalesce(previous_sessions.user_tstamp, previous_sessions.start_tstamp) as previous_user_tstamp,
        -- a session that reached its cap is done: its row is written again as it is, until
        -- quarantined (the quarantine reads only the partitions this upsert rewrites)
        case
            when previous_sessions.is_capped then previous_sessions.start_tstamp
            else least(previous_sessions.start_tstamp, new_sessions_to_track.start_tstamp)
        end as start_tstamp,
        case
            when previous_sessions.is_capped then previous_sessions.end_tstamp
            else greatest(previous_sessions.end_tstamp, new_sessions_to_track.end_tstamp)
        end as end_tstamp
    from new_sessions_to_track
    left join previous_sessions
        on new_sessions_to_track.session_identifier = previous_sessions.session_identifier
),

window_users as (
    -- the first non-null user identifier of the window's events inside the session (its
    -- start to start + max_session_days: an event past the cap is not the session's, and
    -- one run over all the data must not take its user either), by session timestamp (ties:
    -- the smallest), with that timestamp (kept as user_tstamp: a later run compares a late
    -- event's)
    select
        events_in_window.session_identifier,
        min(named_struct(
            'session_tstamp', events_in_window.session_tstamp,
            'user_id', events_in_window.user_identifier
        )) as first_user
    from events_in_window
    inner join bounds
        on events_in_window.session_identifier = bounds.session_identifier
    where
        events_in_window.user_identifier is not null
        and events_in_window.session_tstamp
        <= {{ session_cap }}
    group by events_in_window.session_identifier
),

merged as (
    select
        bounds.session_identifier,
        -- the user of the earliest event inside the session that has one, as one run over all
        -- the data takes it: a late event before the one that gave the user gives its own
        -- (ties: the smaller user; least skips a null). The previous user counts while its
        -- event is inside the session: a late event that moves the start back moves the cap
        -- back too, and no event between the old start and that user's event had a user
        case
            when bounds.is_capped
                then named_struct(
                    'session_tstamp', case when bounds.previous_user is not null then bounds.previous_user_tstamp end,
                    'user_id', bounds.previous_user
                )
            else least(
                case
                    when
                        bounds.previous_user is not null
                        and bounds.previous_user_tstamp
                        <= {{ session_cap }}
                        then named_struct(
                            'session_tstamp', bounds.previous_user_tstamp,
                            'user_id', bounds.previous_user
                        )
                end,
                window_users.first_user
            )
        end as first_user,
        bounds.start_tstamp,
        bounds.end_tstamp
    from bounds
    left join window_users
        on bounds.session_identifier = window_users.session_identifier
),

final as (
    select
        merged.session_identifier,
        merged.first_user.user_id as user_identifier,
        merged.start_tstamp,
        least(
            merged.end_tstamp,
            {{ spark_incremental._add_days('merged.start_tstamp', session_vars.max_session_days) }}
        ) as end_tstamp,
        merged.first_user.session_tstamp as user_tstamp,
        date_format(merged.start_tstamp, 'yyyy-MM-dd') as start_date
    from merged
)

select * from final

{{ config(materialized='spark_incremental_run_table', enabled=spark_incremental._events_enabled()) }}

{#- Every event of the sessions this run processes, deduplicated on the event identifier
    (spark_incremental__event_identifier). The
    window's events come from spark_incremental_base_events_in_window (the run's one scan
    of the window); only sessions that started before lower_limit send Spark back to the
    events table, for [their earliest start, lower_limit), and, in a restatement, sessions
    that go on past upper_limit, for (upper_limit, their latest end] (plus the partition
    column when set, so Spark prunes). Each event must fall within its session's start and start +
    max_session_days. Adds the session's session_identifier and (the lifecycle manifest's)
    user_identifier; an events column of the same name is replaced by them.
    Across runs: an event id whose copy an earlier run already kept in another session
    (a session not processed now, its copy within that session's start and cap) is not
    kept again. Such copies are looked for from days_late_allowed days before this run's
    earliest event up to lower_limit: a copy is sent at most days_late_allowed days after
    its event was created, so no earlier copy of this run's events lies further back. -#}

{%- set events = source('spark_incremental_events', 'events') %}
{%- set session_vars = spark_incremental.validate_session_vars(events) %}
{%- set session_timestamp = adapter.quote(session_vars.session_timestamp) %}
{%- set event_identifier = adapter.quote(session_vars.event_identifier) %}
{%- set sessions_relation = ref('spark_incremental_base_sessions_this_run') %}
{%- set limits = spark_incremental.return_limits_from_model(ref('spark_incremental_base_new_event_limits')) %}
{#- no event since the last run: no session to read (and no query for their range) -#}
{%- set has_new_events = not limits.nothing_new %}
{%- set session_range = {'start_tstamp': none, 'end_tstamp': none} %}
{%- if has_new_events %}
{#- with the window's newest timestamps, which the end hook records -#}
{%- set session_range = spark_incremental._session_range(sessions_relation, with_window_newest=true) %}
{%- endif %}
{%- set reaches_back = session_range.start_tstamp is not none and session_range.start_tstamp < limits.lower_limit %}
{#- a restatement reads its sessions up to sessions_until, past the window (to the second:
    the range's end is read a second further) -#}
{%- set reaches_forward = session_range.end_tstamp is not none and session_range.end_tstamp > limits.upper_limit %}
{%- set earliest_event = session_range.start_tstamp if reaches_back else limits.lower_limit %}
{%- set copies_from = spark_incremental._earliest_copy(earliest_event, session_vars) %}
{%- set sessions_from = spark_incremental._earliest_session_start(copies_from, session_vars) %}
{%- set lifecycle = ref('spark_incremental_base_sessions_lifecycle_manifest') %}
{%- set across_runs = has_new_events and spark_incremental.get_config_var('dedupe_across_runs') %}
{%- set columns = [] %}
{%- for column in session_vars.event_columns if column | lower not in ['session_identifier', 'user_identifier'] %}
{%- do columns.append(column) %}
{%- endfor %}

with

sessions as (
    select * from {{ sessions_relation }}
    {%- if not has_new_events %}
    where false
    {%- endif %}
),

events_in_range as (
    select * from {{ ref('spark_incremental_base_events_in_window') }}
    {%- if reaches_back %}
    union all
    select *
    from {{ events }}
    where
        {{ spark_incremental.events_window_filter(session_range.start_tstamp, limits.lower_limit) }}
        and {{ session_timestamp }} < {{ spark_incremental._ts_literal(limits.lower_limit) }}
        and {{ spark_incremental._session_event_filter(session_vars) }}
    {%- endif %}
    {%- if reaches_forward %}
    union all
    select *
    from {{ events }}
    where
        {{ spark_incremental.events_window_filter(limits.upper_limit,
            session_range.end_tstamp + modules.datetime.timedelta(seconds=1), lower_exclusive=true) }}
        and {{ spark_incremental._session_event_filter(session_vars) }}
    {%- endif %}
),

events_of_sessions as (
    select
        events_in_range.*,
        sessions.session_identifier as session_identifier__si,
        sessions.user_identifier as user_identifier__si
    from events_in_range
    inner join sessions
        on events_in_range.{{ adapter.quote(session_vars.session_identifier) }} = sessions.session_identifier
    where
        events_in_range.{{ session_timestamp }} >= sessions.start_tstamp
        and events_in_range.{{ session_timestamp }}
        <= {{ spark_incremental._add_days('sessions.start_tstamp', session_vars.max_session_days) }}
),

earlier_copies as (
    -- copies of this run's event ids before lower_limit
    select
        {{ event_identifier }} as event_identifier,
        {{ adapter.quote(session_vars.session_identifier) }} as session_identifier,
        {{ session_timestamp }} as session_tstamp
    from {{ events }}
    where
        {{ 'true' if across_runs else 'false' }}
        and {{ spark_incremental.events_window_filter(copies_from, limits.lower_limit) }}
        and {{ session_timestamp }} < {{ spark_incremental._ts_literal(limits.lower_limit) }}
        and {{ spark_incremental._session_event_filter(session_vars) }}
        and {{ event_identifier }} in (select events_of_sessions.{{ event_identifier }} from events_of_sessions)
),

kept_earlier as (
    -- of those, the copies an earlier run kept: in a session this run does not process,
    -- inside its start and (capped) end
    select distinct earlier_copies.event_identifier
    from earlier_copies
    inner join {{ lifecycle }} as lifecycle
        on earlier_copies.session_identifier = lifecycle.session_identifier
    left anti join sessions
        on earlier_copies.session_identifier = sessions.session_identifier
    where
        lifecycle.start_tstamp >= {{ spark_incremental._ts_literal(sessions_from) }}
        and lifecycle.start_date >= {{ spark_incremental._quote(sessions_from.strftime('%Y-%m-%d')) }}
        and earlier_copies.session_tstamp >= lifecycle.start_tstamp
        and earlier_copies.session_tstamp <= lifecycle.end_tstamp
),

tie_broken as (
    -- a duplicated event identifier's copies are told apart by their content (the same choice in
    -- every run); the hash is computed for duplicated identifiers only
    select
        *,
        case
            when count(*) over (partition by {{ event_identifier }}) > 1 then md5(to_json(struct(*)))
        end as event_tie_breaker
    from events_of_sessions
),

ranked as (
    select
        *,
        row_number() over (
            partition by {{ event_identifier }}
            order by {{ session_timestamp }}, event_tie_breaker
        ) as event_rank
    from tie_broken
),

final as (
    select
        {%- for column in columns %}
        ranked.{{ adapter.quote(column) }},
        {%- endfor %}
        ranked.session_identifier__si as session_identifier,
        ranked.user_identifier__si as user_identifier
    from ranked
    left anti join kept_earlier
        on ranked.{{ event_identifier }} = kept_earlier.event_identifier
    where ranked.event_rank = 1
)

select * from final

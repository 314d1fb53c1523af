{{
    config(
        materialized='spark_incremental_run_table',
        file_format='parquet',
        enabled=spark_incremental._events_enabled(),
    )
}}

{#- The events of this run's window, read from the events table once: every column, the
    session timestamp within [lower_limit, upper_limit] (and the partition column, so
    Spark prunes) and the session rules. The lifecycle manifest and events_this_run read
    this copy, so a run scans the window of the events table once; events_this_run
    scans the events table again only before lower_limit, for sessions that started
    earlier. Its columns are listed by name (every column of the events table): a run
    with nothing new keeps the empty table a run with nothing new built from the same
    SQL (spark_incremental_run_table), so a column added to the events table must change
    this SQL, or the kept copy would lack the column events_this_run selects. -#}

{%- set events = source('spark_incremental_events', 'events') %}
{%- set session_vars = spark_incremental.validate_session_vars(events) %}
{%- set limits = spark_incremental.return_limits_from_model(ref('spark_incremental_base_new_event_limits')) %}
{%- set quoted_columns = [] %}
{%- for column in session_vars.event_columns %}
{%- do quoted_columns.append(adapter.quote(column)) %}
{%- endfor %}

with

events_in_window as (
    select {{ quoted_columns | join(', ') }}
    from {{ events }}
    where
        {{ spark_incremental.events_window_filter(limits.lower_limit, limits.upper_limit) }}
        and {{ spark_incremental._session_event_filter(session_vars) }}
),

final as (
    select * from events_in_window
)

select * from final  -- noqa: AM04

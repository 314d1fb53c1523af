{{
    config(
        enabled=var('spark_incremental_bench', false),
        materialized='incremental',
        incremental_strategy='microbatch',
        event_time='start_tstamp',
        batch_size='day',
        lookback=0,
        begin=var('spark_incremental__start_date', '2020-01-01'),
        partition_by=['start_date'],
        file_format='parquet',
        tags=['spark_incremental_bench'],
    )
}}

{#- The same columns as the derived `sessions` model, per day batch. dbt filters the
    source on collector_tstamp for the batch; the partition column is filtered too (as a
    user who knows the table would), so Spark prunes partitions. -#}

{%- set partition_column = var('spark_incremental__events_partition_column', none) %}

with

events as (
    select * from {{ source('spark_incremental_bench', 'events') }}
    {%- if partition_column and model.batch %}
    where
        {{ partition_column }} >= to_date('{{ model.batch.event_time_start.strftime("%Y-%m-%d") }}')
        and {{ partition_column }} <= to_date('{{ (model.batch.event_time_end - modules.datetime.timedelta(microseconds=1)).strftime("%Y-%m-%d") }}')
    {%- endif %}
),

sessions as (
    select
        domain_sessionid as session_identifier,
        max(domain_userid) as user_identifier,
        min(app_id) as app_id,
        min(collector_tstamp) as start_tstamp,
        max(collector_tstamp) as end_tstamp,
        count(*) as event_count,
        count_if(event_name = 'page_view') as page_view_count,
        count(distinct case when event_name = 'page_view' then page_url end) as distinct_page_count,
        min(
            case when event_name = 'page_view' then named_struct(
                'collector_tstamp', collector_tstamp, 'event_id', event_id, 'page_url', page_url
            ) end
        ).page_url as landing_page_url,
        max(
            case when event_name = 'page_view' then named_struct(
                'collector_tstamp', collector_tstamp, 'event_id', event_id, 'page_url', page_url
            ) end
        ).page_url as exit_page_url
    from events
    where domain_sessionid is not null
    group by domain_sessionid
),

final as (
    select
        session_identifier,
        user_identifier,
        app_id,
        start_tstamp,
        end_tstamp,
        unix_timestamp(end_tstamp) - unix_timestamp(start_tstamp) as duration_seconds,
        event_count,
        page_view_count,
        distinct_page_count,
        landing_page_url,
        exit_page_url,
        to_date(start_tstamp) as start_date
    from sessions
)

select * from final

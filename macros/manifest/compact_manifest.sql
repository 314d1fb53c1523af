{#- Keep the log small: when it has more than spark_incremental__manifest_compact_after
    partitions, append the current state as one new partition, then drop the older
    partitions one by one. A kill at any point leaves the current state unchanged.
    When this invocation read the log's partition count (_manifest_current_rows) and
    counted its own appends since, a count within the limit answers without listing the
    partitions (appends of other runs meanwhile, a lock race's losers, are not counted:
    the next run's count sees them). -#}
{% macro compact_manifest(force=false) -%}
  {%- set relation = spark_incremental.manifest_log_relation() -%}
  {%- if not spark_incremental._relation_exists(relation) -%}
    {{- return(none) -}}
  {%- endif -%}
  {%- set limit = spark_incremental.get_config_var('manifest_compact_after') | int -%}
  {%- set counted = spark_incremental._run_cache('log_partitions').get('count') -%}
  {%- if not force and counted is not none and counted <= limit -%}
    {{- return(none) -}}
  {%- endif -%}
  {%- set partitions = [] -%}
  {%- for row in spark_incremental._fetch_rows('show partitions ' ~ relation) -%}
    {%- do partitions.append(row[0].split('=', 1)[1]) -%}
  {%- endfor -%}
  {%- if not force and partitions | length <= limit -%}
    {{- return(none) -}}
  {%- endif -%}
  {%- set batch_id = 'compact-' ~ spark_incremental._manifest_batch_id('log') -%}
  {%- set sql -%}
    insert overwrite table {{ relation }} partition (batch_id)
    select
        *,
        {{ spark_incremental._quote(batch_id) }} as batch_id
    from ({{ spark_incremental._manifest_compacted_sql(relation) }}) as compacted
  {%- endset -%}
  {%- do adapter.execute(sql, fetch=false) -%}
  {#- only now, with the compacted partition written, drop the old ones (one statement) -#}
  {%- set specs = [] -%}
  {%- for partition in partitions -%}
    {%- do specs.append('partition (batch_id = ' ~ spark_incremental._quote(partition) ~ ')') -%}
  {%- endfor -%}
  {%- do adapter.execute('alter table ' ~ relation ~ ' drop if exists ' ~ specs | join(', '), fetch=false) -%}
  {%- do spark_incremental._log('manifest log compacted: ' ~ partitions | length ~ ' partitions into 1') -%}
{%- endmacro %}


{#- The rows that carry the current state: per model the latest 'remove' row, the
    'events' row with the largest last_success after it, and the latest 'managed' row;
    of the run lock, only the locks still open (no 'unlock' row for their invocation),
    each with its first and its newest 'lock' row (when it was taken, when last seen).
    Released and lost locks leave nothing behind. -#}
{% macro _manifest_compacted_sql(log_relation) -%}
{%- set columns = spark_incremental._manifest_columns() | map(attribute=0) | reject('equalto', 'batch_id') | join(', ') -%}
with

log as (
    select * from {{ log_relation }}
),

lock_rows as (
    select * from log
    where model = {{ spark_incremental._quote(spark_incremental._lock_model_name()) }}
),

released as (
    select distinct state from lock_rows
    where record_type = 'unlock'
),

open_locks as (
    select
        lock_rows.*,
        row_number() over (partition by lock_rows.state order by lock_rows.written_at) as first_seen,
        row_number() over (partition by lock_rows.state order by lock_rows.written_at desc) as last_seen
    from lock_rows
    left anti join released on lock_rows.state = released.state
    where lock_rows.record_type = 'lock'
),

removals as (
    select
        model,
        max(written_at) as removed_at
    from log
    where record_type = 'remove'
    group by model
),

ranked as (
    select
        log.*,
        row_number() over (
            partition by log.model, log.record_type
            order by
                case when log.record_type in ('events', 'load') then log.last_success end desc,
                log.written_at desc
        ) as recency
    from log
    left join removals on log.model = removals.model
    where
        log.model != {{ spark_incremental._quote(spark_incremental._lock_model_name()) }}
        and (
            log.record_type != 'events'
            or removals.removed_at is null
            or log.written_at > removals.removed_at
        )
),

final as (
    select {{ columns }}
    from ranked
    where recency = 1
    union all
    select {{ columns }}
    from open_locks
    where first_seen = 1 or last_seen = 1
)

select * from final
{%- endmacro %}

{#- One compile-time query about the session id filter and the run's window. Returns
    {covers_before: the filter's F ('yyyy-MM-dd': every lifecycle row starting before it
     has its id in the filter), none when there is no filter of the configured size;
     reaches_back: R, the date of the window's earliest session timestamp minus
     max_session_days (every row the lifecycle writes in this run starts on or after it,
     except rows it finds in the filter), none when the window holds no session;
     bits_set: bits set in the filter (with candidates_of);
     window_sessions: the number of ids candidates_of returns (with candidates_of);
     candidates: with candidates_of (a query of the run's session ids, as
     session_identifier), the ids whose bits are all set, at most candidate_cap of them, or
     none when there are more;
     probed: with candidates_of, whether the last three answer the lifecycle's question}.
    filter_relation: the filter table, or none when it does not exist.
    probe_if_kept_days: with candidates_of, probed is true only when the filter is kept as
    it is in this run (_session_filter_kept with this step), so that the filter model can
    ask in the query it makes anyway and the lifecycle reuses the answer
    (_session_filter_region). The probe runs either way: on the day the filter is
    rewritten its answer is not used (the lifecycle asks the new filter). Deciding that in
    SQL instead gated the probe behind scalar subqueries, which made the query slower on
    the six days of seven it is used
    (benchmarks/results/fixed_cost/filter_probe_fc1987d.md). -#}
{% macro _session_filter_state(filter_relation, window_events, session_vars, settings, candidates_of=none, probe_if_kept_days=none) -%}
  {%- set state = {'covers_before': none, 'reaches_back': none, 'bits_set': none, 'candidates': none, 'probed': false} -%}
  {%- if not spark_incremental._can_query() or not spark_incremental._relation_exists(window_events) -%}
    {#- offline compiles, and compiles before the first run (no window table yet) -#}
    {{- return(state) -}}
  {%- endif -%}
  {%- set sid = adapter.quote(session_vars.session_identifier) -%}
  {%- set reaches_back_sql = 'date_sub(to_date(min(' ~ adapter.quote(session_vars.session_timestamp) ~ ')), '
      ~ session_vars.max_session_days ~ ')' -%}
  {%- set query -%}
with

{%- if filter_relation is not none %}

filter_rows as (
    select
        bucket_id,
        bits,
        covers_before
    from {{ filter_relation }}
    where filter_bits = {{ settings.total_bits }}
),
{%- if candidates_of is not none %}

probes as (
    {{ spark_incremental._session_filter_probes(candidates_of, settings) | indent(4) }}
),

hits as (
    select probes.session_identifier
    from probes
    inner join filter_rows
        on probes.bucket_id = filter_rows.bucket_id
    where
        shiftright(
            cast(conv(hex(substr(filter_rows.bits, cast(probes.bit_position div 8 + 1 as int), 1)), 16, 10) as int),
            cast(probes.bit_position % 8 as int)
        ) & 1 = 1
    group by probes.session_identifier
    having count(*) = {{ settings.hashes }}
),

capped_hits as (
    select cast(session_identifier as string) as session_identifier from hits
    limit {{ settings.candidate_cap + 1 }}
),
{%- endif %}
{%- endif %}

final as (
    select
        'reaches_back' as kind,
        cast({{ reaches_back_sql }} as string) as value
    from {{ window_events }}
    where {{ sid }} is not null
    {%- if filter_relation is not none %}
    union all
    select
        'covers_before' as kind,
        max(covers_before) as value
    from filter_rows
    where bucket_id = -1
    {%- if candidates_of is not none %}
    union all
    select
        'bits_set' as kind,
        cast(coalesce(sum(bitmap_count(bits)), 0) as string) as value
    from filter_rows
    where bucket_id >= 0
    union all
    select
        'window_sessions' as kind,
        cast(count(*) as string) as value
    from ({{ candidates_of }}) as window_sessions
    union all
    select
        'candidate' as kind,
        session_identifier as value
    from capped_hits
    {%- endif %}
    {%- endif %}
)

select * from final
  {%- endset -%}
  {%- set candidates = [] -%}
  {%- for kind, value in spark_incremental._fetch_rows(query) -%}
    {%- if kind == 'candidate' -%}
      {%- do candidates.append(value) -%}
    {%- else -%}
      {%- do state.update({kind: value}) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- if candidates_of is not none and filter_relation is not none -%}
    {%- do state.update({'candidates': candidates if candidates | length <= settings.candidate_cap else none,
                         'bits_set': state.bits_set | int, 'window_sessions': state.window_sessions | int,
                         'probed': probe_if_kept_days is none or spark_incremental._session_filter_kept(
                             state.covers_before, state.reaches_back, probe_if_kept_days)}) -%}
  {%- endif -%}
  {{- return(state) -}}
{%- endmacro %}

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
     probed: with candidates_of, whether the last three were computed}.
    filter_relation: the filter table, or none when it does not exist.
    probe_if_kept_days: with candidates_of, compute them only when the filter is kept as
    it is in this run (0 <= R - F < this many days: the session id filter's rule for
    not rewriting it), so that the filter model can ask them in the query it makes anyway
    and the lifecycle reuses them (_session_filter_region); on a day the filter is
    rewritten the probe costs nothing and probed is false. -#}
{% macro _session_filter_state(filter_relation, window_events, session_vars, settings, candidates_of=none, probe_if_kept_days=none) -%}
  {%- set state = {'covers_before': none, 'reaches_back': none, 'bits_set': none, 'candidates': none, 'probed': false} -%}
  {%- if not spark_incremental._can_query() or not spark_incremental._relation_exists(window_events) -%}
    {#- offline compiles, and compiles before the first run (no window table yet) -#}
    {{- return(state) -}}
  {%- endif -%}
  {%- set sid = adapter.quote(session_vars.session_identifier) -%}
  {%- set reaches_back_sql = 'date_sub(to_date(min(' ~ adapter.quote(session_vars.session_timestamp) ~ ')), '
      ~ session_vars.max_session_days ~ ')' -%}
  {%- set gated = candidates_of is not none and probe_if_kept_days is not none -%}
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

{%- if gated %}

probe_gate as (
    select
        coalesce(datediff(
            (select {{ reaches_back_sql }} from {{ window_events }} where {{ sid }} is not null),
            (select to_date(max(covers_before)) from filter_rows where bucket_id = -1)
        ) between 0 and {{ probe_if_kept_days - 1 }}, false) as probed
),

gated_ids as (
    select si_ids.session_identifier
    from ({{ candidates_of }}) as si_ids
    where (select probe_gate.probed from probe_gate)
),
{%- endif %}

probes as (
    {{ spark_incremental._session_filter_probes('select session_identifier from gated_ids' if gated else candidates_of, settings) | indent(4) }}
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
    from {{ 'gated_ids' if gated else '(' ~ candidates_of ~ ')' }} as window_sessions
    {%- if gated %}
    union all
    select
        'probed' as kind,
        cast(probed as string) as value
    from probe_gate
    {%- endif %}
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
                         'probed': state.probed == 'true' if gated else true}) -%}
  {%- endif -%}
  {{- return(state) -}}
{%- endmacro %}

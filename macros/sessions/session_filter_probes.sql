{#- The one hash rule of the session id filter: for each id of `ids_sql` (a query with a
    column session_identifier), its `hashes` bit positions in [0, total_bits), by double
    hashing (position i = (h1 + i * h2) mod m, each term reduced mod m first, so no
    bigint overflows under ANSI mode), split into the bucket (which 4 KB bitmap) and the
    bit inside it. Returns a query of (session_identifier, bucket_id int, bit_position bigint). -#}
{% macro _session_filter_probes(ids_sql, settings) -%}
  {%- set m = settings.total_bits -%}
select
    si_positions.session_identifier,
    cast(si_positions.hashed_position div {{ settings.bucket_bits }} as int) as bucket_id,
    si_positions.hashed_position % {{ settings.bucket_bits }} as bit_position
from (
    select
        si_ids.session_identifier,
        pmod(
            pmod(xxhash64(si_ids.session_identifier), {{ m }})
            + cast(si_hash.i as bigint) * pmod(cast(hash(si_ids.session_identifier) as bigint), {{ m }}),
            {{ m }}
        ) as hashed_position
    from ({{ ids_sql }}) as si_ids
    lateral view explode(sequence(0, {{ settings.hashes - 1 }})) si_hash as i
) as si_positions
{%- endmacro %}

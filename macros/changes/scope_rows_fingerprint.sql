{#- What the changed table holds in a change's scope, as text: its row count and the sum
    of a 64-bit hash of every column of each row, e.g. '2 rows, content hash 11869242630579547505'.
    One aggregate over the table's rows in the scope (pruned as the scope allows). A model
    whose mutability type only adds rows keeps it with the changes it applied
    (_changes_identity), so that a retry (the same rows) can be told from a later load
    described with the same scope (other rows). -#}
{% macro _scope_rows_fingerprint(change) -%}
  {%- set sql -%}
    select
        count(*) as row_count,
        coalesce(sum(cast(xxhash64(*) as decimal(38, 0))), 0) as content_hash
    from {{ change.relation }} as {{ change.alias }}
    where ({{ change.scope }})
  {%- endset -%}
  {%- set found = spark_incremental._fetch_rows(sql) -%}
  {{- return(found[0][0] ~ ' row' ~ ('s' if found[0][0] != 1 else '') ~ ', content hash ' ~ found[0][1]) -}}
{%- endmacro %}

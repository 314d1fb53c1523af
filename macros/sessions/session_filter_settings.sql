{#- The size of the Bloom filter of old session ids (spark_incremental_base_session_id_filter):
    {buckets: spark_incremental__session_filter_buckets, bucket_bits: 32768 (one 4 KB bitmap
    of Spark's bitmap_construct_agg), total_bits: buckets * bucket_bits, hashes: 10 (k),
    candidate_cap: 1000 (above this many candidates the lifecycle reads its whole old
    region instead of a literal list)}. -#}
{% macro _session_filter_settings() -%}
  {%- set buckets = spark_incremental.get_config_var('session_filter_buckets') | int -%}
  {{- return({
      'buckets': buckets,
      'bucket_bits': 32768,
      'total_bits': buckets * 32768,
      'hashes': 10,
      'candidate_cap': 1000,
  }) -}}
{%- endmacro %}

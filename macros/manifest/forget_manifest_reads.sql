{#- Forget what this invocation read from the manifest log (the state the run lock read
    with its locks, every managed model's state, the load watermark, the log's partition
    count), so that every later read in the run goes to the log as it is then: called
    when the log is rebuilt empty (spark_incremental_state_table on --full-refresh), and
    when the run lock waited for younger runs before proceeding (one of them may have
    written since the lock's read). -#}
{% macro _forget_manifest_reads() -%}
  {%- do spark_incremental._run_cache('manifest_at_lock').pop('found', none) -%}
  {%- do spark_incremental._run_cache('managed_states').pop('by_model', none) -%}
  {%- do spark_incremental._run_cache('load_watermark').pop('value', none) -%}
  {%- do spark_incremental._run_cache('log_partitions').pop('count', none) -%}
{%- endmacro %}

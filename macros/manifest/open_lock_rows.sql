{#- The lock rows that keep the open run locks open, to append to a rebuilt manifest log.
    A rebuild of the log (--full-refresh with spark_incremental__allow_refresh) drops all
    its rows, the open locks among them: this run's own, taken by start_run, and any
    other's. Read before the drop (one read of the log) and appended to the new log with
    their own stamps (when each run took its lock, when it last wrote a lock row), they
    keep the run holding the lock it took (its checks after a third of
    lock_timeout_minutes find it, instead of stopping it as if another run had taken it
    over), keep a run that waits for it waiting, and leave the protocol's order (the first
    stamps) as it was. A run that starts between the drop and the append finds no lock:
    rebuild the log while no other run starts. -#}
{% macro _open_lock_rows() -%}
  {%- set rows = [] -%}
  {%- for holder in spark_incremental._open_locks() -%}
    {%- set stamps = [(holder.locked_at, 'lock taken')] -%}
    {%- if holder.seen_at != holder.locked_at -%}
      {%- do stamps.append((holder.seen_at, 'newest lock row')) -%}
    {%- endif -%}
    {%- for stamp, what in stamps -%}
      {%- do rows.append({'model': spark_incremental._lock_model_name(), 'record_type': 'lock',
                          'state': holder.invocation_id,
                          'action': 'kept through a rebuild of the log (' ~ what ~ ')',
                          'written_at': modules.datetime.datetime.strptime(stamp, '%Y-%m-%d %H:%M:%S.%f')}) -%}
    {%- endfor -%}
  {%- endfor -%}
  {{- return(rows) -}}
{%- endmacro %}

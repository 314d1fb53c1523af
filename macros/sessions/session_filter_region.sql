{#- For the lifecycle manifest: which of its own rows it reads. Returns {filter_from: F,
    the start of the recent region (none: no usable filter, the whole lookback is one
    region), candidates: the ids whose old rows (before F) are read, or none (all of
    them: more than candidate_cap)}. Candidates are the window's session ids, less the
    quarantined ones (bots come back every run), whose bits are all set in the filter.
    Logs one line (recent region, candidates, old region read or not, fill) and warns
    when the false positive rate passes 1e-3 or when one run in 20 or more would find a
    false candidate among its window sessions (one is enough to read the whole old
    region). active: an incremental run with new events. The filter model asks the same
    query on a day it keeps the filter and leaves the answer in the run cache: then no
    query here. -#}
{% macro _session_filter_region(id_filter, window_events, quarantined, session_vars, lookback_date, active) -%}
  {%- set region = {'filter_from': none, 'candidates': none} -%}
  {%- if not (active and spark_incremental._can_query() and spark_incremental._relation_exists(id_filter)) -%}
    {{- return(region) -}}
  {%- endif -%}
  {%- set settings = spark_incremental._session_filter_settings() -%}
  {%- set ids_sql = spark_incremental._session_filter_window_ids(window_events, quarantined, session_vars) -%}
  {#- the session id filter's model asked the same question in its own query when it kept
      the filter as it is (the usual day): its answer, else one query now -#}
  {%- set asked = spark_incremental._run_cache('session_filter_probe').get(
      spark_incremental._session_filter_probe_key(id_filter, ids_sql)) -%}
  {%- set state = asked if asked is not none
      else spark_incremental._session_filter_state(id_filter, window_events, session_vars, settings, ids_sql) -%}
  {%- if state.covers_before is none or state.reaches_back is none -%}
    {{- return(region) -}}
  {%- endif -%}
  {%- if state.covers_before > state.reaches_back -%}
    {#- only when the filter did not run before the lifecycle in this invocation -#}
    {%- do exceptions.raise_compiler_error("spark_incremental: the session id filter covers sessions starting before "
        ~ state.covers_before ~ ", after this run's earliest possible session start " ~ state.reaches_back
        ~ ": run spark_incremental_base_session_id_filter with the lifecycle manifest (select both, or all the"
        ~ " spark_incremental_base_* models) so that it moves back first") -%}
  {%- endif -%}
  {%- do region.update({'filter_from': state.covers_before, 'candidates': state.candidates}) -%}
  {%- set fill = state.bits_set / settings.total_bits -%}
  {%- set false_positive_rate = fill ** settings.hashes -%}
  {%- if state.candidates is none -%}
    {%- set old_region = 'more than ' ~ settings.candidate_cap ~ ' window sessions may be older: the whole old region from '
        ~ lookback_date ~ ' is read' -%}
  {%- else -%}
    {%- set old_region = state.candidates | length ~ ' window sessions may be older (in the session id filter): '
        ~ ('their rows starting in [' ~ lookback_date ~ ', ' ~ state.covers_before ~ ') are read'
           if state.candidates | length > 0 else 'the old region is not read') -%}
  {%- endif -%}
  {%- do spark_incremental._log('lifecycle: reads the sessions starting from ' ~ [state.covers_before, lookback_date] | max
      ~ ' (the recent region); ' ~ old_region ~ '; filter: ' ~ state.bits_set ~ ' of ' ~ settings.total_bits
      ~ ' bits set, false positive rate ~' ~ '%.1e' | format(false_positive_rate)) -%}
  {#- one false candidate is enough to read the whole old region: the chance of at least
      one among this run's window sessions -#}
  {%- set old_read_chance = 1 - (1 - false_positive_rate) ** state.window_sessions -%}
  {%- if false_positive_rate > 0.001 or old_read_chance >= 0.05 -%}
    {%- do spark_incremental._warn('the session id filter is ' ~ '%.1f' | format(fill * 100) ~ '% full (false positive rate ~'
        ~ '%.1e' | format(false_positive_rate) ~ '): with ' ~ state.window_sessions ~ ' window sessions, about '
        ~ '%d' | format((old_read_chance * 100) | round | int) ~ ' runs in 100 read the whole old region of the lifecycle manifest'
        ~ ' for a false candidate; raise spark_incremental__session_filter_buckets (now ' ~ settings.buckets
        ~ '; about one per 1,000 sessions the lifecycle holds); the filter is rebuilt once') -%}
  {%- endif -%}
  {{- return(region) -}}
{%- endmacro %}


{#- The ids the lifecycle looks up in the session id filter: the window's session ids,
    less the quarantined ones (bots come back every run). -#}
{% macro _session_filter_window_ids(window_events, quarantined, session_vars) -%}
  {%- set sid = adapter.quote(session_vars.session_identifier) -%}
  {%- set ids_sql -%}
    select distinct window_events.{{ sid }} as session_identifier
    from {{ window_events }} as window_events
    {%- if quarantined is not none %}
    left anti join {{ quarantined }} as quarantined
        on window_events.{{ sid }} = quarantined.session_identifier
    {%- endif %}
    where window_events.{{ sid }} is not null
  {%- endset -%}
  {{- return(ids_sql) -}}
{%- endmacro %}


{#- The run cache's key of a filter probe (_run_cache('session_filter_probe')): the filter
    table and the ids' query, so an answer is reused only for the same question. -#}
{% macro _session_filter_probe_key(id_filter, ids_sql) -%}
  {{- return((id_filter.schema ~ '.' ~ id_filter.identifier) | lower ~ '\n' ~ ids_sql) -}}
{%- endmacro %}

{#- The restatement of the event pipeline this run asks for: the entry of
    spark_incremental__restate without a model, {start, end} (end included, optional:
    the latest processed data). none when there is none; else {'start', 'end'} (UTC
    datetimes: the range clipped to [start_date, the latest processed data]),
    'requested' (the value as given) and 'clipped' (bool). The run then reprocesses the sessions with events
    in the range and records no progress (get_run_limits, update_manifest).
    Stops, naming the value, when more than one entry has no model, when nothing was
    processed yet, or when the range lies wholly before start_date or at or after the
    latest processed data. start_run calls it before the run lock, so bad input stops the
    run before anything is written; get_run_limits calls it to decide the state.
    summary: get_run_limits' _manifest_summary, or none to read it (only when the var
    asks for a restatement). -#}
{% macro _events_restatement(start_date, summary=none) -%}
  {%- set raw = spark_incremental.get_config_var('restate') -%}
  {%- set entries = ([raw] if raw is mapping else raw) if raw else [] -%}
  {%- set pipeline = [] -%}
  {%- for entry in entries if not entry.get('model') -%}
    {%- do pipeline.append(entry) -%}
  {%- endfor -%}
  {%- if pipeline | length == 0 -%}
    {{- return(none) -}}
  {%- endif -%}
  {%- set prefix = "spark_incremental: spark_incremental__restate = "
      ~ spark_incremental._config_value_shown(pipeline[0]) ~ " (the event pipeline: an entry without a model)" -%}
  {%- if pipeline | length > 1 -%}
    {%- do exceptions.raise_compiler_error("spark_incremental: spark_incremental__restate has "
        ~ pipeline | length ~ " entries without a model (" ~ spark_incremental._config_value_shown(pipeline)
        ~ "): the event pipeline restates one range per run. Give one {start, end}, or run once per range.") -%}
  {%- endif -%}
  {%- if summary is none -%}
    {%- set summary = spark_incremental._manifest_summary(spark_incremental.tracked_models()) -%}
  {%- endif -%}
  {%- set processed = summary.max_last_success -%}
  {%- if processed is none -%}
    {%- do exceptions.raise_compiler_error(prefix ~ ": nothing has been processed yet (no model tagged"
        ~ " spark_incremental has a last_success in the manifest), so there is nothing to restate."
        ~ " Run without spark_incremental__restate.") -%}
  {%- endif -%}
  {%- set entry = pipeline[0] -%}
  {%- set start = spark_incremental._parse_ts(entry.start, 'spark_incremental__restate.start') -%}
  {%- set end = spark_incremental._parse_ts(entry.end, 'spark_incremental__restate.end') if entry.get('end') else processed -%}
  {%- if start >= processed -%}
    {%- do exceptions.raise_compiler_error(prefix ~ ": the range starts at or after the latest processed data '"
        ~ spark_incremental._ts_text(processed) ~ "' (the newest last_success of the tracked models): nothing"
        ~ " there has been processed yet, a normal run processes it. Restate a range between start_date '"
        ~ spark_incremental._ts_text(start_date) ~ "' and '" ~ spark_incremental._ts_text(processed) ~ "'.") -%}
  {%- endif -%}
  {%- if end <= start -%}
    {%- do exceptions.raise_compiler_error(prefix ~ ": end '" ~ spark_incremental._ts_text(end)
        ~ "' must be after start '" ~ spark_incremental._ts_text(start) ~ "' (the range is [start, end], end included; without end,"
        ~ " the range ends at the latest processed data '" ~ spark_incremental._ts_text(processed) ~ "').") -%}
  {%- endif -%}
  {%- if end <= start_date -%}
    {%- do exceptions.raise_compiler_error(prefix ~ ": the range ends at or before spark_incremental__start_date '"
        ~ spark_incremental._ts_text(start_date) ~ "', where no event is processed. Restate a range between"
        ~ " start_date and the latest processed data '" ~ spark_incremental._ts_text(processed) ~ "'.") -%}
  {%- endif -%}
  {{- return({
      'start': [start, start_date] | max,
      'end': [end, processed] | min,
      'requested': entry,
      'clipped': start < start_date or end > processed,
  }) -}}
{%- endmacro %}

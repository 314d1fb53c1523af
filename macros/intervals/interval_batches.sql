{#- Which intervals a run processes: every interval from `start` to the last ready one,
    minus the done ones (so gaps are filled, not only the tail); restated ranges are
    redone even if done. An interval is ready once it is complete and the model's cron
    has fired at or after its end: ready intervals end at or before
    floor(latest cron fire <= now, unit). Missing runs are cut into batches of batch_size
    intervals, none spanning a done interval.
    Returns {end (ready end), done (done minus restated), missing: [[start, end)],
    batches: [[start, end)], restated (bool)}. -#}
{% macro _interval_batches(settings, done, now, restated=[]) -%}
  {%- set unit = settings.unit -%}
  {%- set fired = spark_incremental._cron_previous(settings.cron, now) -%}
  {%- set end = spark_incremental._interval_floor(fired, unit) if fired is not none else settings.start -%}
  {%- if end <= settings.start -%}
    {{- return({'end': end, 'done': done, 'missing': [], 'batches': [], 'restated': false}) -}}
  {%- endif -%}
  {%- set still_done = [] -%}
  {%- for pair in done -%}
    {%- for kept in spark_incremental._ranges_subtract(pair, restated) -%}
      {%- do still_done.append(kept) -%}
    {%- endfor -%}
  {%- endfor -%}
  {%- set missing = spark_incremental._ranges_subtract([settings.start, end], still_done) -%}
  {%- set batches = [] -%}
  {%- for pair in missing -%}
    {%- if settings.batch_size is none -%}
      {%- do batches.append(pair) -%}
    {%- else -%}
      {%- set cursor = namespace(at=pair[0]) -%}
      {%- for i in range(100000) -%}
        {%- if cursor.at >= pair[1] -%}
          {%- break -%}
        {%- endif -%}
        {%- if i == 99999 -%}
          {%- do exceptions.raise_compiler_error(
              "spark_incremental: more than 100000 batches to process; raise batch_size") -%}
        {%- endif -%}
        {%- set stop = [spark_incremental._interval_add(spark_incremental._interval_floor(cursor.at, unit), unit, settings.batch_size), pair[1]] | min -%}
        {%- do batches.append([cursor.at, stop]) -%}
        {%- set cursor.at = stop -%}
      {%- endfor -%}
    {%- endif -%}
  {%- endfor -%}
  {{- return({'end': end, 'done': still_done, 'missing': missing, 'batches': batches,
              'restated': restated | length > 0}) -}}
{%- endmacro %}


{#- Ranges the var spark_incremental__restate asks to redo for this model, aligned to its
    intervals: {model: name (or a list of names), start: ..., end: ...} or a list of those;
    end defaults to now. An entry without a model restates the event pipeline
    (_events_restatement), not an interval model. -#}
{% macro _interval_restated(model_name, settings, now) -%}
  {%- set raw = spark_incremental.get_config_var('restate') -%}
  {%- if not raw -%}
    {{- return([]) -}}
  {%- endif -%}
  {%- set entries = [raw] if raw is mapping else raw -%}
  {%- set ranges = [] -%}
  {%- for entry in entries -%}
    {%- if entry is not mapping or not entry.get('start') -%}
      {%- do exceptions.raise_compiler_error(
          "spark_incremental: spark_incremental__restate needs {model: name, start: ..., end: ...} (end"
          ~ " optional), or a list of those; got " ~ entry) -%}
    {%- endif -%}
    {%- set names = [] if not entry.get('model') else ([entry.model] if entry.model is string else entry.model) -%}
    {%- if model_name in names -%}
      {%- set start = spark_incremental._interval_floor(spark_incremental._parse_ts(entry.start, 'spark_incremental__restate.start'), settings.unit) -%}
      {%- set end = spark_incremental._interval_ceil(spark_incremental._parse_ts(entry.end, 'spark_incremental__restate.end') if entry.get('end') else now, settings.unit) -%}
      {%- if end <= start -%}
        {%- do exceptions.raise_compiler_error(
            "spark_incremental: spark_incremental__restate for '" ~ model_name ~ "': end must be after start; got " ~ entry) -%}
      {%- endif -%}
      {%- do ranges.append([start, end]) -%}
    {%- endif -%}
  {%- endfor -%}
  {{- return(ranges) -}}
{%- endmacro %}

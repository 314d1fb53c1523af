{#- What a managed_incremental write wrote, recorded in its manifest state ('slice'), so
    that run_slice_predicate can say it after the run (dbt test, or later in dbt build).
    Made from the plan the write acted on; none of the rules is decided here:

      {'kind': 'table'}        a build (first build, --full-refresh, a rebuild, a cron
                               refresh): every row;
      {'kind': 'along', 'column', 'type', 'lower', 'lower_op'}
                               an append or a replaced range: the rows past the plan's
                               lower bound (the window's upper bound is left out: rows
                               past it were not written, and cost nothing to include);
      {'kind': 'intervals', 'column', 'ranges': [[start, end], ...]}
                               interval batches: the batches' [start, end) ranges;
      {'kind': 'unrecorded', 'reason'}
                               an upsert, a plain append, described changes: the written
                               keys or scopes are not recorded, so every row. -#}
{% macro _managed_written_slice(plan, cfg) -%}
  {%- if plan.action == 'build' -%}
    {{- return({'kind': 'table'}) -}}
  {%- elif plan.action in ['append', 'replace_range'] and cfg.along -%}
    {%- set lower = plan.replace_lower if plan.action == 'replace_range' else plan.window.lower -%}
    {%- set lower_op = plan.replace_lower_op if plan.action == 'replace_range' else plan.window.lower_op -%}
    {{- return({'kind': 'along', 'column': cfg.along, 'type': cfg.along_type, 'lower': lower, 'lower_op': lower_op}) -}}
  {%- elif plan.action == 'intervals' -%}
    {{- return({'kind': 'intervals', 'column': cfg.intervals.time_column,
                'ranges': spark_incremental._ranges_to_text(plan.work.batches)}) -}}
  {%- endif -%}
  {{- return({'kind': 'unrecorded', 'reason': plan.action}) -}}
{%- endmacro %}


{#- The recorded slice as a predicate on the model's columns; none (no state, or a state
    written before slices were recorded): every row, '1 = 1'. Every row and no row are
    '1 = 1' and '1 = 0', not true / false: in parentheses right after `where`, Spark 4.3
    reads `(true)` as a column list of an alias named `where`. -#}
{% macro _written_slice_sql(slice) -%}
  {%- if slice is none or slice.kind in ['table', 'unrecorded'] -%}
    {{- return('1 = 1') -}}
  {%- elif slice.kind == 'along' -%}
    {%- set along = spark_incremental._along_window_sql('`' ~ slice.column ~ '`',
        {'lower': slice.lower, 'lower_op': slice.lower_op, 'upper': none}, slice.type) -%}
    {{- return('1 = 1' if along == 'true' else along) -}}
  {%- elif slice.kind == 'intervals' -%}
    {%- set parts = [] -%}
    {%- for pair in spark_incremental._ranges_from_text(slice.ranges) -%}
      {%- do parts.append('(`' ~ slice.column ~ '` >= ' ~ spark_incremental._ts_literal(pair[0])
          ~ ' and `' ~ slice.column ~ '` < ' ~ spark_incremental._ts_literal(pair[1]) ~ ')') -%}
    {%- endfor -%}
    {{- return(parts | join(' or ') if parts else '1 = 0') -}}
  {%- endif -%}
  {%- do exceptions.raise_compiler_error("spark_incremental: unknown recorded slice kind '" ~ slice.kind
      ~ "' (allowed: table, along, intervals, unrecorded)") -%}
{%- endmacro %}

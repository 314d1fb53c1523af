{#- The window a managed_incremental run reads along its `along` column (or indicator),
    for model SQL that wants to read less than everything:

      where {{ spark_incremental.along_filter() }}
      where ds >= {{ spark_incremental.along_min() }} and ds <= {{ spark_incremental.along_max() }}

    along_min() is an inclusive lower bound: on a build it is type_params.min, on an
    incremental run the high-water mark (minus the grace period, never before min). Reading from it reads
    at most one along value too many; the materialization also wraps the query in the
    exact filter (along > high-water mark), so rows are never duplicated. -#}
{% macro along_min() -%}
  {{- return(adapter.dispatch('along_min', 'spark_incremental')()) -}}
{%- endmacro %}


{% macro default__along_min() -%}
  {{- return(spark_incremental._along_bound('lower')) -}}
{%- endmacro %}


{#- Inclusive upper bound of the window: type_params.max (default '9999-12-31'). -#}
{% macro along_max() -%}
  {{- return(adapter.dispatch('along_max', 'spark_incremental')()) -}}
{%- endmacro %}


{% macro default__along_max() -%}
  {{- return(spark_incremental._along_bound('upper')) -}}
{%- endmacro %}


{#- The whole window as a predicate on `column` (default: the along column / indicator):
    `ds >= '2020-01-02' and ds <= '9999-12-31'`, or `true` when this run reads everything. -#}
{% macro along_filter(column=none) -%}
  {{- return(adapter.dispatch('along_filter', 'spark_incremental')(column)) -}}
{%- endmacro %}


{% macro default__along_filter(column=none) -%}
  {%- if not spark_incremental._can_query() -%}
    {{- return('true') -}}
  {%- endif -%}
  {%- set current = spark_incremental._managed_run_plan() -%}
  {%- set window = current.plan.window -%}
  {%- set column = column or current.cfg.along -%}
  {%- set data_type = current.cfg.along_type -%}
  {#- a first build cannot know the column's type: the default bounds (date-like only) are
      left to the materialization's exact filter, so the predicate fits any type -#}
  {%- set known = current.cfg.along_kind is not none -%}
  {%- set inclusive = {
      'lower': window.lower if known or current.cfg.min_set or window.lower != current.cfg.min else none,
      'lower_op': '>=',
      'upper': window.upper if known or current.cfg.max_set or window.upper != current.cfg.max else none,
  } -%}
  {{- return(spark_incremental._along_window_sql(column, inclusive, data_type)) -}}
{%- endmacro %}


{% macro _along_bound(which) -%}
  {%- if not spark_incremental._can_query() -%}
    {{- return("'1000-01-01'" if which == 'lower' else "'9999-12-31'") -}}
  {%- endif -%}
  {%- set current = spark_incremental._managed_run_plan() -%}
  {%- set name = 'along_min' if which == 'lower' else 'along_max' -%}
  {%- if current.cfg.along is none -%}
    {%- do exceptions.raise_compiler_error("spark_incremental: model '" ~ current.cfg.model ~ "': " ~ name
        ~ "() needs mutability type append_only, ds_append_only or incremental_indicator (this model's type is "
        ~ current.cfg.mutability_type ~ ").") -%}
  {%- endif -%}
  {%- set value = current.plan.window[which] -%}
  {%- if value is none -%}
    {%- do exceptions.raise_compiler_error("spark_incremental: model '" ~ current.cfg.model ~ "': " ~ name
        ~ "() has no bound on this run (" ~ current.plan.action ~ " of " ~ current.cfg.mutability_type
        ~ " without type_params." ~ ('min' if which == 'lower' else 'max') ~ "). Use spark_incremental.along_filter(),"
        ~ " or guard with {% if spark_incremental.is_incremental() %}.") -%}
  {%- endif -%}
  {{- return(spark_incremental._along_literal(value, current.cfg.along_type)) -}}
{%- endmacro %}


{#- Predicate for a window {lower, lower_op, upper} on column; literals typed by
    data_type (none: plain string literals). `true` when unbounded. -#}
{% macro _along_window_sql(column, window, data_type, alias=none) -%}
  {%- set ref = (alias ~ '.' if alias else '') ~ column -%}
  {%- set parts = [] -%}
  {%- if window.lower is not none -%}
    {%- do parts.append(ref ~ ' ' ~ window.lower_op ~ ' ' ~ spark_incremental._along_literal(window.lower, data_type)) -%}
  {%- endif -%}
  {%- if window.upper is not none -%}
    {%- do parts.append(ref ~ ' <= ' ~ spark_incremental._along_literal(window.upper, data_type)) -%}
  {%- endif -%}
  {{- return(parts | join(' and ') if parts else 'true') -}}
{%- endmacro %}

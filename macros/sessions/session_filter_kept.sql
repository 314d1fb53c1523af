{#- The session id filter's rule for keeping itself as it is in a run: it covers
    sessions starting before F (covers_before) and the run reaches back to R
    (reaches_back), both 'yyyy-MM-dd'; kept when 0 <= R - F < step_days. F > R (R moved
    back), no filter or no window session: not kept. The filter model writes when not
    kept; _session_filter_state says whether its probe answers the lifecycle. -#}
{% macro _session_filter_kept(covers_before, reaches_back, step_days) -%}
  {%- set lag_days = spark_incremental._session_filter_lag(covers_before, reaches_back) -%}
  {%- if lag_days is none -%}
    {{- return(false) -}}
  {%- endif -%}
  {{- return(0 <= lag_days and lag_days < step_days | int) -}}
{%- endmacro %}

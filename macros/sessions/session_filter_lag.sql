{#- R - F in days for the session id filter: how far the run's reach (reaches_back, R)
    is past the date the filter covers sessions before (covers_before, F), both
    'yyyy-MM-dd'; negative when R moved back; none when either is none. -#}
{% macro _session_filter_lag(covers_before, reaches_back) -%}
  {%- if covers_before is none or reaches_back is none -%}
    {{- return(none) -}}
  {%- endif -%}
  {{- return((spark_incremental._parse_ts(reaches_back) - spark_incremental._parse_ts(covers_before)).days) -}}
{%- endmacro %}

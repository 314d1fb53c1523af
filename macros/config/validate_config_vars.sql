{#- Check every spark_incremental__* var against the spec (and the rules between vars) and
    stop with one message listing every bad one; returns {name: coerced value}. Called
    first in start_run, before the run lock and before anything is written. Checked once
    per invocation (and package: _config_vars_checked); a failed check is kept nowhere,
    so every caller reports it. Callers read the result and must not change it. -#}
{% macro validate_config_vars() -%}
  {%- set kept = spark_incremental._config_vars_checked() -%}
  {%- if kept is not none and kept.get('values') is not none -%}
    {{- return(kept['values']) -}}
  {%- endif -%}
  {%- set values = {} -%}
  {%- set errors = [] -%}
  {%- for entry in spark_incremental._config_var_spec() -%}
    {%- set raw = spark_incremental._config_var_raw(entry) -%}
    {%- set checked = spark_incremental._check_config_var(entry, raw.value) -%}
    {%- if checked.problem is none -%}
      {%- do values.update({entry.name: checked.value}) -%}
    {%- else -%}
      {%- do errors.append(spark_incremental._config_var_error(
          entry, raw.value, checked.problem, checked.get('detail'), raw.env)) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- if values.session_lookback_days is defined and values.max_session_days is defined
        and values.session_lookback_days < values.max_session_days -%}
    {%- do errors.append(
        "spark_incremental: spark_incremental__session_lookback_days = " ~ values.session_lookback_days
        ~ " is not allowed: it must be at least spark_incremental__max_session_days ("
        ~ values.max_session_days ~ "), or sessions still open would be forgotten (default 730).") -%}
  {%- endif -%}
  {%- if errors | length > 0 -%}
    {%- if not execute -%}
      {#- dbt names the model it was parsing when a var failed: say that the vars are not its own -#}
      {%- do errors.append('(Found while dbt parsed the project: these vars are project-wide, not settings of'
          ~ ' the model dbt names above.)') -%}
    {%- endif -%}
    {%- do exceptions.raise_compiler_error(errors | join('\n')) -%}
  {%- endif -%}
  {%- if kept is not none -%}
    {%- do kept.update({'values': values}) -%}
  {%- endif -%}
  {{- return(values) -}}
{%- endmacro %}

{#- The value of spark_incremental__<name> (or of its environment variable, for a var the
    spec marks `env`: _config_var_raw), with the spec's default, checked and coerced
    ('false' is false, '30' is 30, '' is null where null is allowed); a bad value stops
    with the message of _config_var_error. Every var is read through here. Once this
    invocation has checked every var (validate_config_vars), the value comes from that
    check: the same value, without checking it again. -#}
{% macro get_config_var(name) -%}
  {%- set kept = spark_incremental._config_vars_checked() -%}
  {%- if kept is not none and kept.get('values') is not none and name in kept['values'] -%}
    {{- return(kept['values'][name]) -}}
  {%- endif -%}
  {%- set entry = spark_incremental._config_var_entry(name) -%}
  {%- set raw = spark_incremental._config_var_raw(entry) -%}
  {%- set checked = spark_incremental._check_config_var(entry, raw.value) -%}
  {%- if checked.problem is not none -%}
    {%- do exceptions.raise_compiler_error(spark_incremental._config_var_error(
        entry, raw.value, checked.problem, checked.get('detail'), raw.env)) -%}
  {%- endif -%}
  {{- return(checked.value) -}}
{%- endmacro %}

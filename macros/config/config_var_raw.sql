{#- The value one var was given, before any check, and where it came from: the var
    (dbt_project.yml vars: or --vars) when set; else, for a var the spec marks `env` (a
    value for one run), the environment variable SPARK_INCREMENTAL_<NAME> when set and not
    blank, read at execution time only, never while dbt parses: a value that changes
    between runs then keeps dbt's partial parse (a changed --vars forces a full re-parse
    of the whole project); else the spec's default.
    Returns {'value': the raw value, 'env': the environment variable's name when the value
    came from it, else none}. -#}
{% macro _config_var_raw(entry) -%}
  {%- set unset = '__spark_incremental_var_unset__' -%}
  {%- set given = var('spark_incremental__' ~ entry.name, unset) -%}
  {%- if not (given is string and given == unset) -%}
    {{- return({'value': given, 'env': none}) -}}
  {%- endif -%}
  {%- set env_name = spark_incremental._config_var_env_name(entry) -%}
  {%- if env_name is not none and execute -%}
    {%- set text = env_var(env_name, '') -%}
    {%- if text | trim != '' -%}
      {{- return({'value': text, 'env': env_name}) -}}
    {%- endif -%}
  {%- endif -%}
  {{- return({'value': entry.default, 'env': none}) -}}
{%- endmacro %}

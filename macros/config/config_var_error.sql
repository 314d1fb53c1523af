{#- The message for a bad var: the var, the value and its type, what is wrong in it when
    the check says (detail: the bad part of a restate value), what is allowed, the
    default, and the fix; env: the environment variable the value came from, if it did. -#}
{% macro _config_var_error(entry, value, problem, detail=none, env=none) -%}
  {%- set default = entry.default -%}
  {%- set example = default if default is not none and default != [] else '...' -%}
  {#- as YAML reads it (true, not Python's True) -#}
  {%- set example = (example | string | lower) if example is sameas true or example is sameas false else example -%}
  {{- return("spark_incremental: spark_incremental__" ~ entry.name ~ " = "
      ~ spark_incremental._config_value_shown(value) ~ " (" ~ spark_incremental._config_value_type(value)
      ~ ") is not allowed: " ~ (detail ~ '; the value' if detail else 'it') ~ " must be " ~ problem
      ~ (' or null' if entry.get('nullable', false) else '')
      ~ "; default " ~ spark_incremental._config_value_shown(default, quote_text=true) ~ "."
      ~ " Fix it in dbt_project.yml vars:, in --vars '{spark_incremental__" ~ entry.name ~ ": "
      ~ example ~ "}' or in the env var that sets it, or remove it to get the default."
      ~ (" This value came from the environment variable " ~ env ~ " (read when the var is not set)." if env else "")) -}}
{%- endmacro %}

{#- The environment variable that may give a var its value for one run
    (SPARK_INCREMENTAL_<NAME>), for a var the spec marks `env`; none for the others. -#}
{% macro _config_var_env_name(entry) -%}
  {{- return('SPARK_INCREMENTAL_' ~ entry.name | upper if entry.get('env', false) else none) -}}
{%- endmacro %}

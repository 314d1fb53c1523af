{#- The vars of change descriptions, time intervals and partition strategies, with their
    defaults. Read through here until they move into get_config_var's defaults. -#}
{% macro _feature_var(name) -%}
  {%- set defaults = {
      'changes': [],
      'changes_file': none,
      'log_plan': false,
      'restate': none,
      'target_partition_rows': 1000000,
  } -%}
  {%- if name not in defaults -%}
    {%- do exceptions.raise_compiler_error("spark_incremental: unknown var 'spark_incremental__" ~ name ~ "'") -%}
  {%- endif -%}
  {{- return(var('spark_incremental__' ~ name, defaults[name])) -}}
{%- endmacro %}

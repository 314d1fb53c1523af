{#- The spec entry of one var (see _config_var_spec); an unknown name is an error. -#}
{% macro _config_var_entry(name) -%}
  {%- set spec = spark_incremental._config_var_spec() -%}
  {%- for entry in spec if entry.name == name -%}
    {{- return(entry) -}}
  {%- endfor -%}
  {%- do exceptions.raise_compiler_error(
      "spark_incremental: unknown var 'spark_incremental__" ~ name ~ "'. Known vars: "
      ~ (spec | map(attribute='name') | sort | join(', '))) -%}
{%- endmacro %}

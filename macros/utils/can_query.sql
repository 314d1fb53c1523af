{#- Whether compile-time queries may run: false while parsing, and false when
    spark_incremental__offline_compile is set (make lint compiles the models with
    placeholders instead of querying Spark). -#}
{% macro _can_query() -%}
  {{- return(execute and not spark_incremental.get_config_var('offline_compile')) -}}
{%- endmacro %}

{#- Every line the package logs starts with 'spark_incremental: ' so operators can grep it. -#}
{% macro _log(message) -%}
  {%- do log('spark_incremental: ' ~ message, info=true) -%}
{%- endmacro %}


{% macro _warn(message) -%}
  {%- do exceptions.warn('spark_incremental: ' ~ message) -%}
{%- endmacro %}

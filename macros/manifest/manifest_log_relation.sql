{% macro manifest_log_relation() -%}
  {{- return(spark_incremental._relation_for_model('spark_incremental_manifest_log')) -}}
{%- endmacro %}


{% macro manifest_relation() -%}
  {{- return(spark_incremental._relation_for_model('spark_incremental_manifest')) -}}
{%- endmacro %}

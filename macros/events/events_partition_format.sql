{#- How the events partition column holds the date ('date', 'string' or 'int'), or none
    without a partition column: spark_incremental__events_partition_format, else detected
    from the column's type (one metadata call). -#}
{% macro _events_partition_format() -%}
  {%- if spark_incremental.get_config_var('events_partition_column') is none -%}
    {{- return(none) -}}
  {%- endif -%}
  {%- set given = spark_incremental.get_config_var('events_partition_format') -%}
  {%- if given is not none -%}
    {{- return(given) -}}
  {%- endif -%}
  {{- return(spark_incremental._event_columns(spark_incremental.events_relation()).partition_format) -}}
{%- endmacro %}

{#- Whether the base events pipeline (the spark_incremental_base_* models and their run
    limits) is on: spark_incremental__events_enabled, true by default. A project that uses
    only managed_incremental sets it to false, and a plain dbt run then needs no events
    table. Read in the base models' config(), so it is decided at parse time. -#}
{% macro _events_enabled() -%}
  {{- return(spark_incremental.get_config_var('events_enabled')) -}}
{%- endmacro %}

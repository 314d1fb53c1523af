{#- Whether the base events pipeline (the spark_incremental_base_* models and their run
    limits) is on: spark_incremental__events_enabled, true by default. A project that uses
    only managed_incremental sets it to false, and a plain dbt run then needs no events
    table. Accepts true / false and the strings 'true' / 'false' in any case (env_var
    gives text). Read in the base models' config(), so it is decided at parse time. -#}
{% macro _events_enabled() -%}
  {%- set value = spark_incremental.get_config_var('events_enabled') -%}
  {%- if value is sameas true or value is sameas false -%}
    {{- return(value) -}}
  {%- endif -%}
  {%- if value is string and value | lower in ['true', 'false'] -%}
    {{- return(value | lower == 'true') -}}
  {%- endif -%}
  {%- do exceptions.raise_compiler_error(
      "spark_incremental: spark_incremental__events_enabled = " ~ value ~ (" (text)" if value is string else "")
      ~ " is not allowed: it must be true or false (or the text 'true' / 'false'); default true."
      ~ " Set it to false when the project uses only managed_incremental and has no events table.") -%}
{%- endmacro %}

{#- Does dbt raise the package's warnings (exceptions.warn, the event JinjaLogWarning) as
    errors: --warn-error (DBT_WARN_ERROR), or --warn-error-options whose error list holds
    JinjaLogWarning or all, and whose warn and silence lists do not hold it? -#}
{% macro _warnings_are_errors() -%}
  {%- set options = flags.WARN_ERROR_OPTIONS -%}
  {{- return(flags.WARN_ERROR or (options is not none and options.errors('JinjaLogWarning'))) -}}
{%- endmacro %}

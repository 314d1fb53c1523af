{#- Whether compile-time queries may run: false while parsing, in a dbt unit test (the
    model's SQL is rendered against the test's fixtures: the package's macros in it read
    nothing and answer as for a first build, e.g. is_incremental() false,
    is_run_with_new_events() true, along_filter() true; a unit test's `overrides: macros:`
    with the package's prefix, e.g. spark_incremental.is_incremental: true, changes that),
    and when spark_incremental__offline_compile is set (make lint compiles the models with
    placeholders instead of querying Spark). -#}
{% macro _can_query() -%}
  {{- return(execute and not (model is defined and model.resource_type == 'unit_test')
      and not spark_incremental.get_config_var('offline_compile')) -}}
{%- endmacro %}

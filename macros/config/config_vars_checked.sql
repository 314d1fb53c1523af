{#- Where this invocation keeps the checked vars (validate_config_vars's result), by the
    package of the node being rendered: dbt resolves var() for that package (vars scoped
    to a package in dbt_project.yml), and the environment does not change while dbt runs.
    None while dbt parses (nothing is kept then). A run checks every var once per package
    (the root project's hooks, the package's models) instead of once per node and per
    get_config_var: about 1,600 macro calls fewer in a no-op of the bench. -#}
{% macro _config_vars_checked() -%}
  {%- if not execute -%}
    {{- return(none) -}}
  {%- endif -%}
  {%- set scope = model.package_name if model is defined and model.package_name is defined else project_name -%}
  {{- return(spark_incremental._run_cache('config_vars').setdefault(scope, {})) -}}
{%- endmacro %}

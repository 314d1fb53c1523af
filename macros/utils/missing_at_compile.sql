{#- Whether a compile-time query of `relation` should give way to a placeholder: the
    relation does not exist and this command only renders SQL (dbt compile, docs
    generate, show, ls...), so a fresh project with no events table and no package
    tables yet still compiles. dbt run, dbt build and run-operations keep their errors:
    they need the real thing. -#}
{% macro _missing_at_compile(relation) -%}
  {%- if flags.WHICH in ['run', 'build', 'run-operation'] -%}
    {{- return(false) -}}
  {%- endif -%}
  {{- return(not spark_incremental._relation_exists(relation)) -}}
{%- endmacro %}

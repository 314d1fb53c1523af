{#- run-operation used by integration_tests/demo/run_demo.py (`make demo`): runs each
    of `statements` in order. The demo's first dbt call: it starts the embedded Spark
    session (dbt's `session` target) that the demo then reuses for loads and counts. -#}
{% macro demo_run_sql(statements) -%}
  {%- for statement in statements -%}
    {%- do run_query(statement) -%}
  {%- endfor -%}
{%- endmacro %}

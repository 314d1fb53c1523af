{#- dbt renders a test's `where` config while it parses, without the package's macros,
    so a generic test cannot call run_slice_predicate in its `where`. It writes the token
    instead, and this override of dbt's get_where_subquery (enabled by the project's
    `dispatch` config for the dbt namespace, see the README) puts the tested model's
    run_slice_predicate in its place when the test runs:

      config:
        where: "__spark_incremental_run_slice__"

    A `where` without the token is dbt's own. -#}
{% macro _run_slice_token() -%}
  {{- return('__spark_incremental_run_slice__') -}}
{%- endmacro %}


{% macro spark__get_where_subquery(relation) -%}
  {%- set where = config.get('where', '') -%}
  {%- set token = spark_incremental._run_slice_token() -%}
  {%- if not (where is string and token in where) -%}
    {{- return(dbt.default__get_where_subquery(relation)) -}}
  {%- endif -%}
  {%- set predicate = 'true' -%}
  {%- if execute -%}
    {%- set node = graph.nodes.get(model.attached_node) if model.attached_node else none -%}
    {%- if node is none or node.resource_type != 'model' -%}
      {%- do exceptions.raise_compiler_error("spark_incremental: test '" ~ model.name ~ "' uses " ~ token
          ~ " in its where config, but it does not test a model (it tests " ~ relation ~ ")") -%}
    {%- endif -%}
    {%- set predicate = spark_incremental.run_slice_predicate(node.name) -%}
  {%- endif -%}
  {%- set filtered -%}
    (select * from {{ relation }} where {{ where | replace(token, '(' ~ predicate ~ ')') }}) dbt_subquery
  {%- endset -%}
  {{- return(filtered) -}}
{%- endmacro %}

{#- dbt renders a test's `where` config while it parses, without the package's macros,
    so a generic test cannot call run_slice_predicate in its `where`. It writes the token
    instead, and run_slice_where_subquery puts the tested model's run_slice_predicate in
    its place when the test runs. The package overrides none of dbt's macros: a project
    opts in with one macro of its own (dbt looks for a `dbt`-namespace macro in the root
    project first), in e.g. macros/get_where_subquery.sql:

      {% macro get_where_subquery(relation) -%}
        {{ return(spark_incremental.run_slice_where_subquery(relation)) }}
      {%- endmacro %}

    and a test writes
      config:
        where: "__spark_incremental_run_slice__"

    A `where` without the token is dbt's own (dbt.default__get_where_subquery).

    The filtered where starts with `1 = 1 and (`: Spark 4.3 reads `where (` right after a
    table name as an alias `where` with a column list (`where (true)` fails with
    ASSIGNMENT_ARITY_MISMATCH), so the where never starts with a parenthesis, whatever
    the slice and whatever the user's where puts after the token. -#}
{% macro _run_slice_token() -%}
  {{- return('__spark_incremental_run_slice__') -}}
{%- endmacro %}


{% macro run_slice_where_subquery(relation) -%}
  {{- return(adapter.dispatch('run_slice_where_subquery', 'spark_incremental')(relation)) -}}
{%- endmacro %}


{% macro default__run_slice_where_subquery(relation) -%}
  {%- set where = config.get('where', '') -%}
  {%- set token = spark_incremental._run_slice_token() -%}
  {%- if not (where is string and token in where) -%}
    {{- return(dbt.default__get_where_subquery(relation)) -}}
  {%- endif -%}
  {%- set predicate = '1 = 1' -%}
  {%- if execute -%}
    {%- set node = graph.nodes.get(model.attached_node) if model.attached_node else none -%}
    {%- if node is none or node.resource_type != 'model' -%}
      {%- do exceptions.raise_compiler_error("spark_incremental: test '" ~ model.name ~ "' uses " ~ token
          ~ " in its where config, but it does not test a model (it tests " ~ relation ~ ")") -%}
    {%- endif -%}
    {%- set predicate = spark_incremental.run_slice_predicate(node.name) -%}
  {%- endif -%}
  {%- set filtered -%}
    (select * from {{ relation }} where 1 = 1 and ({{ where | replace(token, '(' ~ predicate ~ ')') }})) dbt_subquery
  {%- endset -%}
  {{- return(filtered) -}}
{%- endmacro %}

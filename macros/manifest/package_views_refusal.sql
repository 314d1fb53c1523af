{#- The tables the package keeps or writes (its own, tracked models', managed_incremental
    models') that are views in this environment, sorted, in a message saying what to do;
    none when there is none. A view in the place of the manifest log (made by hand, or by
    a copy of another environment's relations, as `dbt clone` makes where it cannot clone
    a table) is state the package cannot write, and would stop every run with Spark's
    error. Reads dbt's listing of the schemas (cached for the run). -#}
{% macro _package_views_refusal() -%}
  {%- set views = [] -%}
  {%- if execute -%}
    {%- for node in graph.nodes.values() if node.resource_type == 'model'
        and node.config.materialized not in ['view', 'ephemeral', 'spark_incremental_state_view', 'materialized_view']
        and (node.package_name == 'spark_incremental' or 'spark_incremental' in node.tags
             or node.config.materialized == 'managed_incremental') -%}
      {%- set found = adapter.get_relation(database=node.database, schema=node.schema, identifier=node.alias) -%}
      {%- if found is not none and found.is_view -%}
        {%- do views.append(found | string) -%}
      {%- endif -%}
    {%- endfor -%}
  {%- endif -%}
  {%- if views | length == 0 -%}
    {{- return(none) -}}
  {%- endif -%}
  {%- set drops = [] -%}
  {%- for view in views | sort -%}
    {%- do drops.append('drop view ' ~ view) -%}
  {%- endfor -%}
  {{- return("spark_incremental: " ~ views | sort | join(', ') ~ (" is a view" if views | length == 1 else " are views")
      ~ " where the package keeps its tables (its run state and the tables it writes). A view here is"
      ~ " usually a copy of another environment's relations (dbt clone, or made by hand): the package cannot"
      ~ " keep this environment's state in it. Drop " ~ ("it" if views | length == 1 else "them")
      ~ " (" ~ drops | join('; ') ~ ") and run again: the package builds its tables, and the first run in"
      ~ " this schema processes the events from start_date (state 1). Nothing was written.") -}}
{%- endmacro %}

{#- Relations resolved from the graph, so that they work in hooks and materializations
    where ref() and source() cannot be used. -#}

{% macro _node_by_name(name) -%}
  {%- if execute -%}
    {%- for node in graph.nodes.values() -%}
      {%- if node.resource_type == 'model' and node.name == name -%}
        {{- return(node) -}}
      {%- endif -%}
    {%- endfor -%}
  {%- endif -%}
  {{- return(none) -}}
{%- endmacro %}


{% macro _relation_for_model(name) -%}
  {%- set node = spark_incremental._node_by_name(name) -%}
  {%- if node is none -%}
    {%- do exceptions.raise_compiler_error(
        "spark_incremental: model '" ~ name ~ "' is not in this project. Is the package installed"
        ~ " (dbt deps) and its models enabled?") -%}
  {%- endif -%}
  {{- return(api.Relation.create(database=node.database, schema=node.schema,
                                 identifier=node.alias, type='table')) -}}
{%- endmacro %}


{% macro events_relation() -%}
  {%- if execute -%}
    {%- for node in graph.sources.values() -%}
      {%- if node.package_name == 'spark_incremental' and node.source_name == 'spark_incremental_events' -%}
        {{- return(api.Relation.create(database=node.database, schema=node.schema,
                                       identifier=node.identifier, type='table')) -}}
      {%- endif -%}
    {%- endfor -%}
  {%- endif -%}
  {{- return(api.Relation.create(
      schema=spark_incremental.get_config_var('events_schema'),
      identifier=spark_incremental.get_config_var('events_table'), type='table')) -}}
{%- endmacro %}


{% macro _relation_exists(relation) -%}
  {%- set found = adapter.get_relation(database=relation.database, schema=relation.schema,
                                       identifier=relation.identifier) -%}
  {{- return(found is not none) -}}
{%- endmacro %}


{#- Whether `relation` exists: dbt's listing (its start-of-run listing, kept up to date with
    what this run builds) says so, or, when it does not list it, a look at the schema now
    (one statement, on this rare path only: another run may have created it after this
    run's listing, while this run waited for the run lock). -#}
{% macro _relation_exists_now(relation) -%}
  {%- if spark_incremental._relation_exists(relation) -%}
    {{- return(true) -}}
  {%- endif -%}
  {%- set rows = spark_incremental._fetch_rows('show tables in ' ~ relation.schema
      ~ ' like ' ~ spark_incremental._quote(relation.identifier)) -%}
  {%- for row in rows if (row[1] | lower) == (relation.identifier | lower) -%}
    {{- return(true) -}}
  {%- endfor -%}
  {{- return(false) -}}
{%- endmacro %}


{#- Enabled models tagged spark_incremental, by name, sorted: the models whose progress
    the manifest keeps. An ephemeral model is not one of them, whatever its tags (a
    folder's +tags reach it too): it keeps no table and never appears in a run's results,
    so it would never record progress, and every run would wait in state 2 for its
    backfill. A tagged model that selects from it is tracked. -#}
{% macro tracked_models() -%}
  {{- return(spark_incremental._tagged_models().tracked) -}}
{%- endmacro %}


{#- The enabled models tagged spark_incremental, by name, sorted: {tracked, ephemeral}
    (the one rule of tracked_models; get_run_limits logs the ephemeral ones). -#}
{% macro _tagged_models() -%}
  {%- set found = {'tracked': [], 'ephemeral': []} -%}
  {%- if execute -%}
    {%- for node in graph.nodes.values() if node.resource_type == 'model' and 'spark_incremental' in node.tags -%}
      {%- do found[('ephemeral' if node.config.materialized == 'ephemeral' else 'tracked')].append(node.name) -%}
    {%- endfor -%}
  {%- endif -%}
  {{- return({'tracked': found.tracked | sort, 'ephemeral': found.ephemeral | sort}) -}}
{%- endmacro %}

{#- The graph node a change's `table` names: a source table (by its name, its identifier or
    source_name.name), a seed, a snapshot or a model. Ambiguous or unknown names are errors. -#}
{% macro _change_table_node(name) -%}
  {%- set wanted = name | string | trim | lower -%}
  {%- set found = [] -%}
  {%- for node in graph.sources.values() -%}
    {%- if wanted in [node.name | lower, node.identifier | lower, (node.source_name ~ '.' ~ node.name) | lower] -%}
      {%- do found.append({'unique_id': node.unique_id, 'alias': node.name, 'kind': 'source',
          'relation': api.Relation.create(database=node.database, schema=node.schema,
                                          identifier=node.identifier, type='table')}) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- for node in graph.nodes.values() -%}
    {%- if node.resource_type in ['model', 'seed', 'snapshot']
          and wanted in [node.name | lower, (node.alias or node.name) | lower] -%}
      {%- do found.append({'unique_id': node.unique_id, 'alias': node.name, 'kind': node.resource_type,
          'relation': api.Relation.create(database=node.database, schema=node.schema,
                                          identifier=node.alias or node.name, type='table')}) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- if found | length == 0 -%}
    {%- do exceptions.raise_compiler_error(
        "spark_incremental: change on table '" ~ name ~ "': no source, seed, snapshot or model of"
        ~ " that name in this project") -%}
  {%- endif -%}
  {%- if found | length > 1 -%}
    {%- do exceptions.raise_compiler_error(
        "spark_incremental: change on table '" ~ name ~ "' is ambiguous: "
        ~ found | map(attribute='unique_id') | join(', ') ~ ". Name it as source_name.table_name.") -%}
  {%- endif -%}
  {{- return(found[0]) -}}
{%- endmacro %}

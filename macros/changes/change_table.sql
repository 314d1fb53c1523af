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
    {#- the tables a change can name that managed_incremental models read: those are the
        ones an operator means -#}
    {%- set names = [] -%}
    {%- for node in graph.nodes.values() if node.config.materialized == 'managed_incremental' -%}
      {%- for parent_id in node.depends_on.nodes -%}
        {%- set parent = graph.sources.get(parent_id) or graph.nodes.get(parent_id) -%}
        {%- set shown = (parent.source_name ~ '.' ~ parent.name) if parent and parent.resource_type == 'source'
            else (parent.name if parent else none) -%}
        {%- if shown and shown not in names -%}
          {%- do names.append(shown) -%}
        {%- endif -%}
      {%- endfor -%}
    {%- endfor -%}
    {%- do spark_incremental._stop_run(
        "spark_incremental: change on table '" ~ name ~ "': no source, seed, snapshot or model of"
        ~ " that name in this project. The tables managed_incremental models read directly: "
        ~ ((names | sort | join(', ')) if names else 'none')) -%}
  {%- endif -%}
  {%- if found | length > 1 -%}
    {%- do spark_incremental._stop_run(
        "spark_incremental: change on table '" ~ name ~ "' is ambiguous: "
        ~ found | map(attribute='unique_id') | join(', ') ~ ". Name it as source_name.table_name.") -%}
  {%- endif -%}
  {{- return(found[0]) -}}
{%- endmacro %}

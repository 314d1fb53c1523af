{#- unique_ids of everything a node reads, directly or through other nodes (sources,
    seeds, models), from the graph's depends_on. -#}
{% macro _upstream_ids(node) -%}
  {%- set seen = {} -%}
  {%- set walk = namespace(frontier=node.depends_on.nodes | list) -%}
  {%- for depth in range(500) -%}
    {%- if walk.frontier | length == 0 -%}
      {%- break -%}
    {%- endif -%}
    {%- set following = [] -%}
    {%- for uid in walk.frontier if uid not in seen -%}
      {%- do seen.update({uid: true}) -%}
      {%- set parent = graph.nodes.get(uid) -%}
      {%- if parent is not none -%}
        {%- for up in parent.depends_on.nodes if up not in seen -%}
          {%- do following.append(up) -%}
        {%- endfor -%}
      {%- endif -%}
    {%- endfor -%}
    {%- set walk.frontier = following -%}
  {%- endfor -%}
  {{- return(seen.keys() | list) -}}
{%- endmacro %}


{#- The enabled managed_incremental models, sorted by name. -#}
{% macro _managed_incremental_nodes() -%}
  {%- set found = [] -%}
  {%- for node in graph.nodes.values() -%}
    {%- if node.resource_type == 'model' and node.config.materialized == 'managed_incremental' -%}
      {%- do found.append(node) -%}
    {%- endif -%}
  {%- endfor -%}
  {{- return(found | sort(attribute='name')) -}}
{%- endmacro %}


{#- The changes, of the given list, that a node reads (through source() or ref()). -#}
{% macro _changes_hitting(node, changes) -%}
  {%- if changes | length == 0 -%}
    {{- return([]) -}}
  {%- endif -%}
  {%- set upstream = spark_incremental._upstream_ids(node) -%}
  {%- set hits = [] -%}
  {%- for change in changes if change.unique_id in upstream -%}
    {%- do hits.append(change) -%}
  {%- endfor -%}
  {{- return(hits) -}}
{%- endmacro %}

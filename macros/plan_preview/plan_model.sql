{#- A tracked and/or managed_incremental model's entry: its action as the run decides it
    ('refused' when the run refuses a rebuild of a model whose config says
    full_refresh=false: _change_plan_refusal, the start hook's rule for described
    changes, or _managed_rebuild_refusal, the materialization's; entry.refused {by,
    message}), and the tables it depends on (graph.nodes depends_on). A model's SQL
    decides which rows of an input it selects, so an incremental action lists each input
    whole (what the scan lists before the model's own filters prune it: an upper bound);
    a skip reads nothing, and so does a refused model. A managed model's entry.leftovers
    names the side tables an interrupted write left (<name>__si_old, __si_new, __si_apply,
    __si_stage): the run recovers them first (_managed_recover), which the preview, reading
    only, does not; its plan is for the table as it is now. -#}
{% macro _plan_model(node, limits, is_tracked, managed_node) -%}
  {%- set kinds = [] -%}
  {%- set details = [] -%}
  {%- set entry = {'model': node.name, 'action': none, 'inputs': []} -%}
  {%- if is_tracked -%}
    {%- do kinds.append('events') -%}
    {%- set no_new = spark_incremental._no_new_events_reason(limits, node.name) if limits is not none else none -%}
    {%- set window_text = 'no events pipeline' if limits is none
        else (no_new or "the run's window (state " ~ limits.state ~ ')') -%}
    {%- if limits is not none -%}
      {%- do entry.update({'state': limits.state, 'lower_limit': spark_incremental._ts_text(limits.lower_limit),
          'upper_limit': spark_incremental._ts_text(limits.upper_limit)}) -%}
    {%- endif -%}
    {%- do entry.update({'action': 'skip' if no_new else 'process'}) -%}
    {%- do details.append((entry.action ~ ': ' if managed_node is none else 'events: ') ~ window_text) -%}
  {%- endif -%}
  {%- if managed_node is not none -%}
    {%- set target = api.Relation.create(database=managed_node.database, schema=managed_node.schema,
        identifier=managed_node.alias, type='table') -%}
    {%- set planned = spark_incremental._managed_plan_for_node(managed_node, target, false, false,
        preview=true, limits=limits) -%}
    {%- set leftovers = [] -%}
    {%- for side in spark_incremental._managed_side_tables(target).values() -%}
      {%- if spark_incremental._managed_exists(side) is not none -%}
        {%- do leftovers.append(side.identifier) -%}
      {%- endif -%}
    {%- endfor -%}
    {%- do entry.update({'leftovers': leftovers}) -%}
    {%- set managed = spark_incremental._plan_managed_detail(planned) -%}
    {%- do kinds.append('managed: ' ~ planned.cfg.mutability_type) -%}
    {%- do entry.update({'action': planned.plan.action, 'plan': managed.plan, 'refresh_plan': managed.refresh_plan,
        'batches_upper_bound': managed.batches_upper_bound, 'refused': none}) -%}
    {#- a rebuild of a model kept by full_refresh=false, refused by the run's own rules: the
        start hook's for described changes (the run stops before any model), else the
        materialization's (the model fails) -#}
    {%- set by_hook = spark_incremental._change_plan_refusal(managed_node, planned.flags.change_plan) -%}
    {%- set refusal = by_hook or spark_incremental._managed_rebuild_refusal(managed_node, planned.plan, planned.flags) -%}
    {%- if refusal -%}
      {%- set by = 'on-run-start' if by_hook else 'materialization' -%}
      {%- do entry.update({'action': 'refused', 'refused': {'by': by, 'message': refusal}}) -%}
      {%- do details.insert(0, ('refused: the run stops in its on-run-start hook, before any model runs'
          if by_hook else 'refused: the model fails, its materialization refuses the rebuild')
          ~ ' (config full_refresh=false keeps its table): ' ~ managed.text) -%}
    {%- else -%}
      {%- do details.insert(0, managed.text) -%}
    {%- endif -%}
    {%- if leftovers -%}
      {%- do details.insert(0, 'first recovers ' ~ leftovers | join(', ') ~ ', left by an interrupted write'
          ~ ' (the plan shown is for the table as it is now; after the repair it may differ)') -%}
    {%- endif -%}
  {%- endif -%}
  {%- do entry.update({'kind': kinds | join(' + '), 'detail': details | join('; ')}) -%}
  {%- for dependency in node.depends_on.nodes -%}
    {%- set relation = spark_incremental._plan_dependency_relation(dependency) -%}
    {%- if relation is not none -%}
      {%- set whole = spark_incremental._plan_scan(relation) -%}
      {%- set input = spark_incremental._plan_input(none if entry.action in ['skip', 'refused'] else whole, whole) -%}
      {%- if dependency.startswith('model.') -%}
        {%- do input.update({'note': 'a model this run updates first: its files now'}) -%}
      {%- endif -%}
      {%- do entry.inputs.append(input) -%}
    {%- endif -%}
  {%- endfor -%}
  {{- return(entry) -}}
{%- endmacro %}


{#- The relation of a node a model depends on (a source, model, seed or snapshot), or
    none (an ephemeral model, a test, a macro). -#}
{% macro _plan_dependency_relation(unique_id) -%}
  {%- if unique_id.startswith('source.') -%}
    {%- set source = graph.sources.get(unique_id) -%}
    {{- return(api.Relation.create(database=source.database, schema=source.schema,
                                   identifier=source.identifier, type='table') if source else none) -}}
  {%- endif -%}
  {%- set node = graph.nodes.get(unique_id) -%}
  {%- if node is none or node.resource_type not in ['model', 'seed', 'snapshot']
        or node.config.materialized == 'ephemeral' -%}
    {{- return(none) -}}
  {%- endif -%}
  {{- return(api.Relation.create(database=node.database, schema=node.schema, identifier=node.alias, type='table')) -}}
{%- endmacro %}

{#- The refresh plan of one managed_incremental model for the changes it reads, or none
    when no change reaches it. A function of the changes, the graph, the model's existing
    table and its recorded state, read only, so the on-run-start hook and the
    materialization agree.
    Returns {model, unique_id, full_refresh, reason, operations: [{operation, condition,
    scopes: [{alias, scope}]}], changes: [{table, type, scope}]}.
    Operations: 'add rows where' (clean ADD_ROWS: insert the model's rows in the scope),
    'remove where' (clean REMOVE_ROWS: drop the model's rows in the scope), 'replace scope'
    (every other type: drop the model's rows in the scope and insert its rows in the scope
    again, so nothing is counted twice), or one 'full refresh' with the reason. A clean
    ADD_ROWS whose scope already holds rows of the model's table (_table_holds_scope) is a
    'replace scope'; for a model whose mutability type only adds rows it is 'already added'
    (nothing to do) when its state records these very changes, with these very rows of the
    changed table in the scope, as applied (a retry), and a 'full refresh' otherwise
    (_held_scope_of_an_adding_model). Such a model's clean ADD_ROWS keeps the rows'
    fingerprint in its scope (source_rows: _scope_rows_fingerprint), so that its state
    records it when the rows are added; `fingerprints` (changed table -> fingerprint),
    when given, lets the plans of many models read each changed table's scope once. -#}
{% macro _refresh_plan_for_node(node, changes, fingerprints=none) -%}
  {%- set hits = spark_incremental._changes_hitting(node, changes) -%}
  {%- if hits | length == 0 -%}
    {{- return(none) -}}
  {%- endif -%}
  {%- set plan = {
      'model': node.name, 'unique_id': node.unique_id, 'full_refresh': false, 'reason': none,
      'operations': [], 'changes': [],
  } -%}
  {%- for change in hits -%}
    {%- do plan.changes.append({'table': change.table, 'type': change.type, 'scope': change.scope}) -%}
  {%- endfor -%}
  {%- set mutability = node.config.get('mutability') -%}
  {%- set mutability_type = mutability.get('type') if mutability is mapping else none -%}
  {%- set reason = spark_incremental._full_refresh_reason(node, hits, mutability_type) -%}
  {%- if reason -%}
    {%- do plan.update({'full_refresh': true, 'reason': reason}) -%}
    {%- do plan.operations.append({'operation': 'full refresh', 'condition': none, 'scopes': [], 'reason': reason}) -%}
    {{- return(plan) -}}
  {%- endif -%}
  {%- set operation = spark_incremental._change_types()[hits[0].type] -%}
  {%- set note = none -%}
  {%- if hits | length > 1 and operation == 'add rows where' -%}
    {#- rows added to two joined tables meet in the output: appending each scope would
        count their matches twice; one replace of the union of the scopes cannot -#}
    {%- set operation = 'replace scope' -%}
    {%- set note = 'adds to ' ~ hits | length ~ ' tables: replaced, not appended, so joined rows are not counted twice' -%}
  {%- endif -%}
  {%- set scopes = [] -%}
  {%- set texts = [] -%}
  {%- for change in hits -%}
    {%- do scopes.append({'alias': change.alias, 'scope': change.scope}) -%}
    {%- do texts.append('(' ~ change.scope ~ ')') -%}
  {%- endfor -%}
  {%- set adding = mutability_type in spark_incremental._managed_adding_types() -%}
  {%- if operation == 'add rows where' and adding -%}
    {#- one change (two adds are a replace): what its table holds in the scope now, read
        once for every model that one plan reaches (fingerprints, by changed table) -#}
    {%- set known = fingerprints if fingerprints is not none else {} -%}
    {%- if hits[0].unique_id not in known -%}
      {%- do known.update({hits[0].unique_id: spark_incremental._scope_rows_fingerprint(hits[0])}) -%}
    {%- endif -%}
    {%- do scopes[0].update({'source_rows': known[hits[0].unique_id]}) -%}
  {%- endif -%}
  {%- if operation == 'add rows where' and spark_incremental._table_holds_scope(node, hits[0]) -%}
    {#- the scope covers only added rows, so a model whose rows follow its source's holds
        none in it yet; one that does derives rows in the scope from other rows too (an outer
        join that now matches the added row, a group that already existed) or is a retry:
        appended, the new rows would sit beside the old ones -#}
    {%- if not adding -%}
      {#- a replace of the scope is right in each case -#}
      {%- set operation = 'replace scope' -%}
      {%- set note = 'the model already holds rows in the scope (an outer join that the added rows now match,'
          ~ ' a group that existed, or a retry): replaced, not appended, so no row is doubled' -%}
    {%- else -%}
      {%- set reason = spark_incremental._held_scope_of_an_adding_model(node, plan,
          spark_incremental._added_operation(scopes), mutability_type) -%}
      {%- if reason -%}
        {#- the rebuild takes in the scope's rows as they are now: the operation keeps the
            scopes with their fingerprint, and the model's state records the ADD_ROWS as
            applied (_changes_applied), so a retry of this run finds it added -#}
        {%- do plan.update({'full_refresh': true, 'reason': reason}) -%}
        {%- do plan.operations.append({'operation': 'full refresh', 'condition': none, 'scopes': scopes, 'reason': reason}) -%}
        {{- return(plan) -}}
      {%- endif -%}
      {%- set operation = 'already added' -%}
      {%- set note = "a retry: the model's state records these very changes as applied, with the rows that "
          ~ hits[0].table ~ ' holds in the scope now, and its table holds rows in the scope; nothing is added twice' -%}
    {%- endif -%}
  {%- endif -%}
  {%- do plan.operations.append({'operation': operation, 'condition': texts | join(' or '), 'scopes': scopes, 'reason': note}) -%}
  {{- return(plan) -}}
{%- endmacro %}


{#- Why the model must be rebuilt instead of refreshed in scope; '' when it need not.
    mutability_type: the model's (none without mutability). -#}
{% macro _full_refresh_reason(node, hits, mutability_type) -%}
  {%- set types = [] -%}
  {%- for change in hits if change.type not in types -%}
    {%- do types.append(change.type) -%}
  {%- endfor -%}
  {%- if types | length > 1 -%}
    {%- set described = [] -%}
    {%- for change in hits -%}
      {%- do described.append(change.type ~ ' on ' ~ change.table) -%}
    {%- endfor -%}
    {{- return('several change types hit the model: ' ~ described | join(', ')) -}}
  {%- endif -%}
  {%- for change in hits if not change.scope -%}
    {{- return('the change on ' ~ change.table ~ ' has no scope: the whole table may have changed') -}}
  {%- endfor -%}
  {%- if flags.FULL_REFRESH and node.config.get('full_refresh') is not sameas false -%}
    {{- return('--full-refresh') -}}
  {%- endif -%}
  {%- set columns = spark_incremental._model_table_columns(node) -%}
  {%- if columns is none -%}
    {{- return('the model has no table yet') -}}
  {%- endif -%}
  {%- for change in hits -%}
    {%- set unmapped = change.columns | reject('in', columns) | list -%}
    {%- if unmapped | length > 0 -%}
      {{- return('the scope of the change on ' ~ change.table ~ ' reads ' ~ unmapped | join(', ')
          ~ ', which the model does not carry (its columns: ' ~ columns | join(', ')
          ~ '): the scope cannot be mapped onto the model') -}}
    {%- endif -%}
  {%- endfor -%}
  {%- set operation = spark_incremental._change_types()[types[0]] -%}
  {%- if operation != 'add rows where' and mutability_type in spark_incremental._managed_adding_types() -%}
    {{- return(types[0] ~ ' needs a remove-where (' ~ operation ~ '), which the model cannot apply: its'
        ~ " mutability type '" ~ mutability_type ~ "' only ever adds rows") -}}
  {%- endif -%}
  {{- return('') -}}
{%- endmacro %}


{#- Lower-case column names of a model's existing table; none when it has no table. -#}
{% macro _model_table_columns(node) -%}
  {%- set relation = adapter.get_relation(database=node.database, schema=node.schema,
                                          identifier=node.alias or node.name) -%}
  {%- if relation is none -%}
    {{- return(none) -}}
  {%- endif -%}
  {{- return(spark_incremental._relation_column_names(relation)) -}}
{%- endmacro %}


{#- Does the model's table hold a row in the change's scope (evaluated with the table's
    rows aliased as the changed table, as the refresh applies it)? One limit-1 query. The
    bare scope (a where clause drops null as false) is pushed to the scan: the scope's
    partitions only when it reads the partition columns, and parquet's row-group
    statistics skip the rest; a clean ADD_ROWS finds no row, so this reads what the
    pushed scope leaves of the table. -#}
{% macro _table_holds_scope(node, change) -%}
  {%- set relation = api.Relation.create(database=node.database, schema=node.schema,
                                         identifier=node.alias or node.name, type='table') -%}
  {%- set sql -%}
    select 1 as held
    from {{ relation }} as {{ change.alias }}
    where ({{ change.scope }})
    limit 1
  {%- endset -%}
  {{- return(spark_incremental._fetch_rows(sql) | length > 0) -}}
{%- endmacro %}


{#- A model whose mutability type only adds rows (immutable, append_only, ds_append_only)
    cannot replace a scope. When its table already holds rows in the scope of a clean
    ADD_ROWS (`operation`: the plan's 'add rows where', its scopes with their source_rows):
    '' when its state records these very changes as applied, with the rows the changed
    table holds in the scope now (a retry of a run in which it added them: nothing to add),
    else why it is rebuilt. The rows then come from an outer join that the added rows now
    match, from a run that added them and stopped before recording it, or from an earlier
    load described with the same scope (the state records the text, but other rows);
    appended, they would sit beside the new ones. Neither the description nor the state
    alone tells a retry: a later load with the same scope adds other rows, and after the
    scope's rows were removed the model holds none and the load is added. -#}
{% macro _held_scope_of_an_adding_model(node, plan, operation, mutability_type) -%}
  {%- set state = spark_incremental._managed_read_state(node.name) -%}
  {%- set applied = (state.state or {}).get('changes_applied') if state is not none else none -%}
  {%- set identity = spark_incremental._changes_identity({'changes': plan.changes, 'operations': [operation]}) -%}
  {%- if applied == identity -%}
    {{- return('') -}}
  {%- endif -%}
  {%- set tables = plan.changes | map(attribute='table') | join(', ') -%}
  {%- set text = spark_incremental._changes_identity({'changes': plan.changes,
      'operations': [{'operation': operation.operation, 'condition': operation.condition}]}) -%}
  {%- if applied is not none and applied.startswith(text) -%}
    {%- set why = 'its state records the same description as applied, but with other rows of ' ~ tables
        ~ ' in the scope (then ' ~ ((applied[text | length:] | trim) or 'not recorded') ~ ', now '
        ~ identity[text | length:] | trim ~ '), so this is a later load described with the same scope, not a retry' -%}
  {%- else -%}
    {%- set why = 'they come from an outer join that the added rows now match, or from a run that added them'
        ~ ' and stopped before recording it' -%}
  {%- endif -%}
  {{- return("the model's table already holds rows in the scope of the ADD_ROWS on " ~ tables ~ ': ' ~ why
      ~ "; its mutability type '" ~ mutability_type ~ "' only ever adds rows, so it cannot replace them") -}}
{%- endmacro %}

{#- The refresh plan of one managed_incremental model for the changes it reads, or none
    when no change reaches it. A function of the changes, the graph and the model's
    existing table, read only, so the on-run-start hook and the materialization agree.
    Returns {model, unique_id, full_refresh, reason, operations: [{operation, condition,
    scopes: [{alias, scope}]}], changes: [{table, type, scope}]}.
    Operations: 'add rows where' (clean ADD_ROWS: insert the model's rows in the scope),
    'remove where' (clean REMOVE_ROWS: drop the model's rows in the scope), 'replace scope'
    (every other type: drop the model's rows in the scope and insert its rows in the scope
    again, so nothing is counted twice), or one 'full refresh' with the reason. A clean
    ADD_ROWS whose scope already holds rows of the model's table (_table_holds_scope) is a
    'replace scope', whatever the model's mutability type: replacing is idempotent, so a
    retry, a later load described with the same scope, and an outer join that the added
    rows now match all come out as a rebuild would. -#}
{% macro _refresh_plan_for_node(node, changes) -%}
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
  {%- if operation == 'add rows where' and spark_incremental._table_holds_scope(node, hits[0]) -%}
    {#- the scope covers only added rows, so a model whose rows follow its source's holds
        none in it yet; one that does derives rows in the scope from other rows too (an outer
        join that now matches the added row, a group that already existed), or the scope
        also covers an earlier load (a later load described with the same scope), or the
        run is a retry: appended, the new rows would sit beside the old ones; replaced,
        the scope comes out as the model's query gives it -#}
    {%- set operation = 'replace scope' -%}
    {%- set note = 'the model already holds rows in the scope (an outer join that the added rows now match,'
        ~ ' a group that existed, an earlier load into the scope, or a retry): replaced, not appended,'
        ~ ' so no row is doubled' -%}
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
  {%- if types[0] not in ['ADD_ROWS', 'ADD_ROWS_WITH_DIRTY_CONDITION']
      and mutability_type in spark_incremental._managed_adding_types() -%}
    {#- rows changed or removed in a source declared to only add rows: the model's own
        runs (a high-water mark, or none at all) cannot have seen such a change, so the
        declaration is wrong and other rows may be stale too -#}
    {{- return(types[0] ~ " says rows changed or went, but the model's mutability type '" ~ mutability_type
        ~ "' only ever adds rows: its runs cannot have seen such changes, so other rows may be stale too") -}}
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

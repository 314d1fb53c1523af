{#- The validated change list of this invocation: a list of
    {table, type, scope, unique_id, alias, relation, columns} in the given order, one per
    table: a table described twice or more (a loader's queue of loads since the last run
    that succeeded) gets one change, in the place of its first (_merged_change), and the
    log says so. Bad input (unknown type, unknown key, a scope that is not a single boolean
    expression on the table's columns) is an error before anything runs. -#}
{% macro get_changes() -%}
  {{- return(adapter.dispatch('get_changes', 'spark_incremental')()) -}}
{%- endmacro %}


{% macro default__get_changes() -%}
  {%- if not spark_incremental._can_query() -%}
    {{- return([]) -}}
  {%- endif -%}
  {%- set types = spark_incremental._change_types() -%}
  {%- set changes = [] -%}
  {%- set seen = {} -%}
  {%- for raw in spark_incremental._raw_changes() -%}
    {%- set label = 'change #' ~ loop.index -%}
    {%- if raw is not mapping -%}
      {%- do exceptions.raise_compiler_error(
          "spark_incremental: " ~ label ~ " must be a mapping {table, type, scope}; got " ~ raw) -%}
    {%- endif -%}
    {%- set unknown = raw.keys() | reject('in', ['table', 'type', 'scope']) | list -%}
    {%- if unknown | length > 0 -%}
      {%- do exceptions.raise_compiler_error(
          "spark_incremental: " ~ label ~ " has unknown keys " ~ unknown | join(', ') ~ "; allowed: table, type, scope") -%}
    {%- endif -%}
    {%- if not raw.get('table') -%}
      {%- do exceptions.raise_compiler_error("spark_incremental: " ~ label ~ " needs a table") -%}
    {%- endif -%}
    {%- set label = "change #" ~ loop.index ~ " on '" ~ raw.table ~ "'" -%}
    {%- set type = (raw.get('type') or '') | string | trim | upper -%}
    {%- if type == '' -%}
      {%- do exceptions.raise_compiler_error(
          "spark_incremental: " ~ label ~ " needs a type, one of " ~ types.keys() | join(', ')) -%}
    {%- endif -%}
    {%- if type not in types -%}
      {%- do exceptions.raise_compiler_error(
          "spark_incremental: " ~ label ~ ": unknown change type '" ~ raw.get('type') ~ "'. Allowed: "
          ~ types.keys() | join(', ')) -%}
    {%- endif -%}
    {%- set table = spark_incremental._change_table_node(raw.table) -%}
    {%- set scope = raw.get('scope') -%}
    {%- if scope is none or (scope | string | trim) == '' -%}
      {%- set checked = {'columns': []} -%}
      {%- set scope = none -%}
    {%- else -%}
      {%- set scope = scope | string | trim -%}
      {%- set checked = spark_incremental._check_change_scope(label, table, scope) -%}
    {%- endif -%}
    {%- set change = {
        'table': raw.table | string, 'type': type, 'scope': scope,
        'unique_id': table.unique_id, 'alias': table.alias, 'relation': table.relation | string,
        'columns': checked.columns,
    } -%}
    {%- if table.unique_id in seen -%}
      {#- checked on its own above; the union of two checked scopes is as safe as each -#}
      {%- set first = changes[seen[table.unique_id].index] -%}
      {%- set merged = spark_incremental._merged_change(first, change) -%}
      {%- set message = label ~ ' describes the table of ' ~ seen[table.unique_id].label ~ ' ('
          ~ table.unique_id ~ '): merged into one ' ~ merged.type ~ ' of '
          ~ ('the whole table' if merged.scope is none else 'scope ' ~ merged.scope)
          ~ ' (' ~ first.type ~ ' and ' ~ type ~ ')' -%}
      {%- set logged = spark_incremental._run_cache('merged_changes_logged') -%}
      {%- if message not in logged -%}
        {%- do logged.update({message: true}) -%}
        {%- do spark_incremental._log(message) -%}
      {%- endif -%}
      {%- do first.update(merged) -%}
    {%- else -%}
      {%- do seen.update({table.unique_id: {'index': changes | length, 'label': label}}) -%}
      {%- do changes.append(change) -%}
    {%- endif -%}
  {%- endfor -%}
  {{- return(changes) -}}
{%- endmacro %}

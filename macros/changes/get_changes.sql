{#- The validated change list of this invocation: a list of
    {table, type, scope, unique_id, alias, relation, columns} in the given order.
    Bad input (unknown type, unknown key, two changes for one table, a scope that is not a
    single boolean expression on the table's columns) is an error before anything runs. -#}
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
    {%- if table.unique_id in seen -%}
      {%- do exceptions.raise_compiler_error(
          "spark_incremental: two changes for one table: " ~ seen[table.unique_id] ~ " and " ~ label
          ~ " both describe " ~ table.unique_id ~ ". Describe at most one change per table"
          ~ " (MIXED_CHANGES covers adds, updates and removes together).") -%}
    {%- endif -%}
    {%- do seen.update({table.unique_id: label}) -%}
    {%- set scope = raw.get('scope') -%}
    {%- if scope is none or (scope | string | trim) == '' -%}
      {%- set checked = {'columns': []} -%}
      {%- set scope = none -%}
    {%- else -%}
      {%- set scope = scope | string | trim -%}
      {%- set checked = spark_incremental._check_change_scope(label, table, scope) -%}
    {%- endif -%}
    {%- do changes.append({
        'table': raw.table | string, 'type': type, 'scope': scope,
        'unique_id': table.unique_id, 'alias': table.alias, 'relation': table.relation | string,
        'columns': checked.columns,
    }) -%}
  {%- endfor -%}
  {{- return(changes) -}}
{%- endmacro %}

{#- dbt model contracts (`contract: {enforced: true}` and `columns:` with `data_type`) on
    managed_incremental, kept as dbt's table and incremental materializations keep them:
    the query's columns must be the contract's, by name and data type, or the run stops
    with dbt's own contract error before anything is written; the table's columns follow
    the contract's order. dbt checks the contract only when it creates the table; this
    materialization checks it on every run that writes, so a query that drifts from its
    contract stops even where on_schema_change would have taken the change.

    sql, query_columns: the model's compiled SQL and its (name, type) columns as
    `describe query` gave them, which the materialization has anyway. Returns {sql,
    columns}: as given without an enforced contract; else the SQL selecting the
    contract's columns in its order (dbt's get_select_subquery, as its create_table_as
    does) and the columns in that order.

    When every name and type reads as the contract writes it (types compared without
    case and spaces), the contract holds and no statement is sent. Otherwise dbt's own
    check decides (get_assert_columns_equivalent: two statements that let Spark read both
    sides' types, so `integer` matches `int`), and its error names each mismatch; when it
    passes, the contract's select is described (one statement more). -#}
{% macro _managed_apply_contract(sql, query_columns) -%}
  {%- set contract = config.get('contract') -%}
  {%- if not (contract and contract.enforced) -%}
    {{- return({'sql': sql, 'columns': query_columns}) -}}
  {%- endif -%}
  {%- set declared = {} -%}
  {%- for column in model.columns.values() -%}
    {%- do declared.update({column.name: (column.data_type or '') | lower | replace(' ', '')}) -%}
  {%- endfor -%}
  {%- set found = {} -%}
  {%- for name, type in query_columns -%}
    {%- do found.update({name: type}) -%}
  {%- endfor -%}
  {%- set same = {'value': declared | length > 0 and declared | length == found | length} -%}
  {%- for name, type in found.items() if same.value and declared.get(name) != (type | lower | replace(' ', '')) -%}
    {%- do same.update({'value': false}) -%}
  {%- endfor -%}
  {%- set contract_sql = get_select_subquery(sql) -%}
  {%- if not same.value -%}
    {%- do get_assert_columns_equivalent(sql) -%}
    {#- the contract holds as Spark reads it, in other words than the query's: the columns
        as the contract's select names them (one statement, on this path only) -#}
    {{- return({'sql': contract_sql, 'columns': spark_incremental._managed_query_columns(contract_sql)}) -}}
  {%- endif -%}
  {%- set ordered = [] -%}
  {%- for column in model.columns.values() -%}
    {%- do ordered.append((column.name, found[column.name])) -%}
  {%- endfor -%}
  {{- return({'sql': contract_sql, 'columns': ordered}) -}}
{%- endmacro %}

{#- Append the plans' operations to spark_incremental_refresh_plan, one row per operation,
    in this invocation's partition. -#}
{% macro _record_refresh_plan(plans) -%}
  {%- set rows = [] -%}
  {%- set planned_at = spark_incremental._ts_text(modules.datetime.datetime.utcnow()) -%}
  {%- for plan in plans -%}
    {%- for operation in plan.operations -%}
      {%- set values = [
          plan.model, loop.index, operation.operation, operation.condition,
          operation.reason or plan.reason,
          plan.changes | map(attribute='table') | join(', '),
          plan.changes | map(attribute='type') | join(', '),
          tojson(operation.scopes), invocation_id, planned_at,
      ] -%}
      {%- set rendered = [] -%}
      {%- for value in values -%}
        {%- set type = spark_incremental._refresh_plan_columns()[loop.index0][1] -%}
        {%- do rendered.append('cast(' ~ spark_incremental._quote(value) ~ ' as ' ~ type ~ ')') -%}
      {%- endfor -%}
      {%- do rows.append('(' ~ rendered | join(', ') ~ ')') -%}
    {%- endfor -%}
  {%- endfor -%}
  {%- if rows | length == 0 -%}
    {{- return(0) -}}
  {%- endif -%}
  {%- set relation = spark_incremental._ensure_refresh_plan_table() -%}
  {%- do adapter.execute('insert into ' ~ relation ~ ' partition (batch_id = '
      ~ spark_incremental._quote(invocation_id) ~ ')\nvalues\n  ' ~ rows | join(',\n  '), fetch=false) -%}
  {{- return(rows | length) -}}
{%- endmacro %}


{#- This invocation's recorded plan of one model (written by the on-run-start hook: _settle_refresh_plan), or none. -#}
{% macro _recorded_refresh_plan(model_name) -%}
  {%- set relation = spark_incremental.refresh_plan_relation() -%}
  {%- if not spark_incremental._relation_exists(relation) -%}
    {{- return(none) -}}
  {%- endif -%}
  {%- set sql -%}
    select operation, condition, reason, change_tables, change_types, scopes
    from {{ relation }}
    where batch_id = {{ spark_incremental._quote(invocation_id) }} and model = {{ spark_incremental._quote(model_name) }}
    order by step
  {%- endset -%}
  {%- set rows = spark_incremental._fetch_rows(sql) -%}
  {%- if rows | length == 0 -%}
    {{- return(none) -}}
  {%- endif -%}
  {%- set plan = {'model': model_name, 'full_refresh': false, 'reason': none, 'operations': [], 'changes': [],
                  'recorded': true} -%}
  {%- set tables = rows[0][3].split(', ') -%}
  {%- set types = rows[0][4].split(', ') -%}
  {%- for table in tables -%}
    {%- do plan.changes.append({'table': table, 'type': types[loop.index0], 'scope': none}) -%}
  {%- endfor -%}
  {%- for row in rows -%}
    {%- if row[0] == 'full refresh' -%}
      {%- do plan.update({'full_refresh': true, 'reason': row[2]}) -%}
    {%- endif -%}
    {%- do plan.operations.append({'operation': row[0], 'condition': row[1], 'reason': row[2],
                                   'scopes': fromjson(row[5] or '[]')}) -%}
  {%- endfor -%}
  {{- return(plan) -}}
{%- endmacro %}

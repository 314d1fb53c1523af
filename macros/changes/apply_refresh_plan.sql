{#- Apply a plan's scoped operations to the model's existing table (a 'full refresh' plan
    is the materialization's rebuild, not handled here). `sql`: the model's query;
    target_desc: _managed_describe(target). within (optional): {predicate, text}, the rows
    every operation is kept to (a time-interval model's done intervals: _changes_within),
    and its words for the detail. Returns {rows (inserted), removed, partitions, detail
    (what was done, in words), cleanup (tables to drop once the state is recorded)}. -#}
{% macro _apply_refresh_plan(plan, target, sql, target_desc, within=none) -%}
  {%- set predicate = within.predicate if within is not none else none -%}
  {%- set columns = target_desc.columns | map(attribute=0) | list -%}
  {%- set column_list = spark_incremental._managed_column_list(target_desc.columns) -%}
  {%- set result = {'rows': 0, 'removed': 0, 'partitions': none, 'detail': '', 'cleanup': []} -%}
  {%- set actions = [] -%}
  {%- for operation in plan.operations -%}
    {%- for relation in result.cleanup -%}
      {%- do adapter.drop_relation(relation) -%}
    {%- endfor -%}
    {%- set in_model -%}
      select
          {{ column_list }}
      from (
          {{ spark_incremental._scope_flagged_sql(sql, operation.scopes, columns, predicate) }}
      ) as si_scoped
      where __si_in_scope
    {%- endset -%}
    {%- set in_target = spark_incremental._scope_flagged_sql('select * from ' ~ target, operation.scopes, columns, predicate) -%}
    {%- if operation.operation == 'add rows where' -%}
      {#- clean adds: nothing of the target is read or rewritten -#}
      {%- set counted = spark_incremental._fetch_rows('select count(*) from (' ~ in_model ~ ') as si_counted') -%}
      {%- if counted[0][0] > 0 -%}
        {%- do adapter.execute('insert into table ' ~ target ~ ' by name\n' ~ in_model, fetch=false) -%}
      {%- endif -%}
      {%- do result.update({'rows': result.rows + counted[0][0]}) -%}
      {%- do actions.append('added ' ~ counted[0][0] ~ ' rows where ' ~ operation.condition) -%}
    {%- elif operation.operation in ['remove where', 'replace scope'] -%}
      {%- set done = spark_incremental._replace_rows(target, in_target,
          in_model if operation.operation == 'replace scope' else none, target_desc, '__si_in_scope') -%}
      {%- set where = 'nothing rewritten' if done.removed + done.inserted == 0
          else (done.partitions ~ ' partition' ~ ('s' if done.partitions != 1 else '') ~ ' rewritten')
          if done.partitions is not none else 'table rewritten' -%}
      {%- if operation.operation == 'remove where' -%}
        {%- do actions.append('removed ' ~ done.removed ~ ' rows where ' ~ operation.condition ~ ' (' ~ where ~ ')') -%}
      {%- else -%}
        {%- do actions.append('replaced scope ' ~ operation.condition ~ ': ' ~ done.removed ~ ' rows out, '
            ~ done.inserted ~ ' in (' ~ where ~ ')') -%}
      {%- endif -%}
      {%- do result.update({'rows': result.rows + done.inserted, 'removed': result.removed + done.removed,
                            'partitions': done.partitions, 'cleanup': done.cleanup}) -%}
    {%- else -%}
      {%- do exceptions.raise_compiler_error(
          "spark_incremental: cannot apply '" ~ operation.operation ~ "' in scope; it needs the model's rebuild") -%}
    {%- endif -%}
  {%- endfor -%}
  {%- do result.update({'detail': 'change descriptions' ~ (' ' ~ within.text if within is not none else '') ~ ': '
      ~ actions | join('; ')}) -%}
  {{- return(result) -}}
{%- endmacro %}

{#- Repair what an interrupted run left in the tables of the selected managed_incremental
    models that `changes` reach (_managed_recover, the write layer's one recovery), so the
    plan made next reads each table as the model's write will find it. A plan made before
    it could see a table without the rows of an interrupted overwrite: a clean ADD_ROWS of
    those rows would be planned as an add, and the model, recovering first, would then hold
    them twice. Only in a run, build or retry, as the model's own repair (dbt compile and
    docs write nothing). Logs each repair; returns the names of the models repaired. -#}
{% macro _recover_reached_models(changes) -%}
  {%- set repaired = [] -%}
  {%- if not spark_incremental._command_writes() -%}
    {{- return(repaired) -}}
  {%- endif -%}
  {%- set selected = spark_incremental._selected_ids() -%}
  {%- for node in spark_incremental._managed_incremental_nodes()
      if node.unique_id in selected and spark_incremental._changes_hitting(node, changes) | length > 0 -%}
    {%- set target = api.Relation.create(database=node.database, schema=node.schema,
                                         identifier=node.alias or node.name, type='table') -%}
    {%- set messages = spark_incremental._managed_recover(target) -%}
    {%- for message in messages -%}
      {%- do spark_incremental._log(node.name ~ ': ' ~ message) -%}
    {%- endfor -%}
    {%- if messages | length > 0 -%}
      {%- do repaired.append(node.name) -%}
    {%- endif -%}
  {%- endfor -%}
  {{- return(repaired) -}}
{%- endmacro %}

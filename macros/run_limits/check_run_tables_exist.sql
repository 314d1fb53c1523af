{#- A model that reads the run tables (events_in_window, sessions_this_run,
    events_this_run: the models materialized as spark_incremental_run_table) reads what
    the pipeline's last run wrote, or what this run built before it. When one of them
    does not exist, the pipeline has not built it in this schema (a run of the limits
    model alone shows the state and builds no run table), or it was dropped: the model
    stops here, before it writes anything, with the package's error instead of Spark's
    'table or view not found'. Checked once per model and invocation, from dbt's
    listing (which this run's own builds update); only a table the listing lacks costs a
    statement. Only runs (run, build, retry) are checked: compile, show and docs render
    SQL without reading a table, and hooks and operations read no run table. -#}
{% macro _check_run_tables_exist() -%}
  {%- if not execute or not spark_incremental._command_writes() -%}
    {{- return(none) -}}
  {%- endif -%}
  {%- if model is not defined or model is not mapping or model.get('resource_type') != 'model' -%}
    {{- return(none) -}}
  {%- endif -%}
  {%- set checked = spark_incremental._run_cache('run_tables_checked') -%}
  {%- if model.unique_id in checked -%}
    {{- return(none) -}}
  {%- endif -%}
  {%- for parent_id in model.get('depends_on', {}).get('nodes', []) -%}
    {%- set parent = graph.nodes.get(parent_id) -%}
    {%- if parent is not none and parent.config.materialized == 'spark_incremental_run_table' -%}
      {%- set relation = api.Relation.create(database=parent.database, schema=parent.schema,
                                             identifier=parent.alias, type='table') -%}
      {%- if not spark_incremental._relation_exists_now(relation) -%}
        {%- do exceptions.raise_compiler_error(
            "spark_incremental: " ~ model.name ~ " reads the run table " ~ relation ~ ", which does not"
            ~ " exist: the events pipeline has not run in this schema yet (a run of"
            ~ " spark_incremental_base_new_event_limits alone shows the state and builds no run table),"
            ~ " or the table was dropped. Run the pipeline first: dbt run (every model), or dbt run"
            ~ " --select +" ~ model.name ~ ". This model changed nothing.") -%}
      {%- endif -%}
    {%- endif -%}
  {%- endfor -%}
  {%- do checked.update({model.unique_id: true}) -%}
{%- endmacro %}

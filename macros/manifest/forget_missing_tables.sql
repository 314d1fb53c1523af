{#- on-run-start, after the run lock: a model fed by the events window (a tracked model,
    the sessions lifecycle manifest) whose table does not exist while the manifest holds
    progress for it (the table was dropped by hand, or the model was deleted and added
    back) is forgotten by the rebuild rule (_forget_rebuilt): built from this run's
    window alone it would hold one window and look whole. Forgotten before the run
    limits are read, this run backfills it from start_date (state 2; state 1 when the
    lifecycle manifest is gone). Only models whose table keeps what earlier runs wrote
    are checked: a `table` or `view` holds this run's window anyway (dbt-spark's table
    build drops the old table first, so a failed build leaves none), and an ephemeral
    model has no table. Returns the forgotten models. -#}
{% macro _forget_missing_tables() -%}
  {%- set forgotten = [] -%}
  {%- set lifecycle = 'spark_incremental_base_sessions_lifecycle_manifest' -%}
  {%- for name in [lifecycle] + spark_incremental.tracked_models() if name not in forgotten -%}
    {%- set node = spark_incremental._node_by_name(name) -%}
    {%- if node is not none and node.config.materialized not in ['table', 'view', 'ephemeral', 'materialized_view'] -%}
      {%- set relation = spark_incremental._relation_for_model(name) -%}
      {%- if not spark_incremental._relation_exists(relation) -%}
        {%- do forgotten.extend(spark_incremental._forget_rebuilt(name,
            'its table ' ~ relation ~ ' does not exist (dropped, the model deleted and added back, or its schema or alias changed)'
            ~ ' while the manifest holds progress for it', before_limits=true)) -%}
      {%- endif -%}
    {%- endif -%}
  {%- endfor -%}
  {{- return(forgotten) -}}
{%- endmacro %}

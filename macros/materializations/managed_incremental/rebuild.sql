{#- Before a managed_incremental model is rebuilt (plan action 'build', or 'intervals' with
    rebuild), and before anything is written: the bookkeeping that keeps history.

    1. A model whose config says full_refresh=false is not rebuilt over its table for any
       reason: the run stops with the reason and the way out (_refuse_kept_table_rebuild).
    2. A model fed by the events window: _forget_rebuilt (the one rule) removes it, or
       every tracked model for the lifecycle manifest, from the manifest; the build is
       then empty (plan.empty) and the next runs backfill it from start_date.
    3. A time-interval model: its done intervals are forgotten in the manifest now, before
       the swap (its other state is kept, so a rebuild that stops before the swap is
       asked for again): whatever point a failure or a kill hits, the next run rebuilds
       or re-processes every interval, never trusts intervals of a table that is gone.

    Returns the plan (updated). -#}
{% macro _managed_rebuild(cfg, state, plan, flags) -%}
  {%- if not spark_incremental._managed_rebuilds_table(plan, flags) -%}
    {{- return(plan) -}}
  {%- endif -%}
  {%- set windowed = spark_incremental._is_windowed_model(cfg.model) -%}
  {%- do spark_incremental._refuse_kept_table_rebuild(model, plan.reason) -%}
  {%- if plan.action == 'build' and windowed -%}
    {%- set forgotten = spark_incremental._forget_rebuilt(cfg.model, plan.reason) -%}
    {%- if forgotten | length > 0 -%}
      {%- do plan.update({'empty': true, 'reason': plan.reason ~ ', built empty: backfilled from start_date next'}) -%}
    {%- endif -%}
  {%- endif -%}
  {%- if plan.action == 'intervals' and state is not none and (state.state or {}).get('intervals') -%}
    {%- set emptied = dict(state.state) -%}
    {%- do emptied.update({'intervals': []}) -%}
    {%- do spark_incremental._managed_write_state(cfg.model, state.mutability_type, state.last_refresh,
        none, none, emptied, 'rebuild started (' ~ plan.reason ~ '): done intervals forgotten') -%}
  {%- endif -%}
  {{- return(plan) -}}
{%- endmacro %}


{#- Does the plan rebuild an existing table (action 'build', or 'intervals' with rebuild)? -#}
{% macro _managed_rebuilds_table(plan, flags) -%}
  {{- return((plan.action == 'build' or (plan.action == 'intervals' and plan.rebuild)) and flags.target_exists) -}}
{%- endmacro %}


{#- The message with which the materialization refuses the model's planned rebuild
    (_managed_rebuild: _refuse_kept_table_rebuild), or none: what the plan preview shows
    for a model whose config says full_refresh=false. node: the model's node; plan and
    flags: its plan (_managed_plan_for_node). -#}
{% macro _managed_rebuild_refusal(node, plan, flags) -%}
  {%- if not spark_incremental._managed_rebuilds_table(plan, flags) -%}
    {{- return(none) -}}
  {%- endif -%}
  {{- return(spark_incremental._kept_table_refusal(node, plan.reason)) -}}
{%- endmacro %}

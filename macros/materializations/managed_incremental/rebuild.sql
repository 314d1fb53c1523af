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
  {%- set rebuild = plan.action == 'build' or (plan.action == 'intervals' and plan.rebuild) -%}
  {%- if not rebuild or not flags.target_exists -%}
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

{#- Whether this run brings a model anything new: false when no event arrived since the
    last run (the window is empty), or when a tracked model's
    last_success in the manifest already covers this run's upper_limit (state 2 or 3
    re-reads a window this model has processed; never in a restatement), so a derived
    model can skip its work:
        where {{ spark_incremental.is_run_with_new_events(this.name) }}
    (a model with an alias may pass it: it is read as the model's name). Renders as
    True / False (Spark reads both). -#}
{% macro is_run_with_new_events(model_name=none) -%}
  {{- return(adapter.dispatch('is_run_with_new_events', 'spark_incremental')(model_name)) -}}
{%- endmacro %}


{% macro default__is_run_with_new_events(model_name=none) -%}
  {%- if not spark_incremental._can_query() -%}
    {{- return(true) -}}
  {%- endif -%}
  {%- set name = spark_incremental._model_name_of(model_name or this.name) -%}
  {%- set limits = spark_incremental.return_limits_from_model(
      spark_incremental._relation_for_model('spark_incremental_base_new_event_limits')) -%}
  {%- set reason = spark_incremental._no_new_events_reason(limits, name) -%}
  {%- set logged = spark_incremental._run_cache('no_new_events_logged') -%}
  {%- if reason is not none and not limits.nothing_new and name not in logged -%}
    {#- once per model and invocation (the model's SQL and its materialization both ask;
        an empty window: get_run_limits logged it once) -#}
    {%- do spark_incremental._log(reason) -%}
    {%- do logged.update({name: true}) -%}
  {%- endif -%}
  {{- return(reason is none) -}}
{%- endmacro %}


{#- Why a run with these limits brings model `name` nothing new, or none when it brings it
    something: the rule of is_run_with_new_events, as a pure function of the run limits
    ({upper_limit, nothing_new, last_success_by_model}), so the plan preview
    (spark_incremental.plan) decides it the same way before the run. -#}
{% macro _no_new_events_reason(limits, name) -%}
  {%- if limits.nothing_new -%}
    {{- return('no event since the last run: every model skips its work') -}}
  {%- endif -%}
  {%- if limits.restate -%}
    {#- a restatement reprocesses every model, whatever its last_success -#}
    {{- return(none) -}}
  {%- endif -%}
  {#- the limits model recorded every tracked model's last_success (one tiny query,
      not a read of the manifest log) -#}
  {%- set last_success = limits.last_success_by_model.get(name) -%}
  {%- if last_success is not none and last_success >= limits.upper_limit -%}
    {{- return(name ~ " has processed up to '" ~ spark_incremental._ts_text(last_success)
        ~ "', which covers this run's upper limit '" ~ spark_incremental._ts_text(limits.upper_limit)
        ~ "': no new events for it, its work is skipped") -}}
  {%- endif -%}
  {{- return(none) -}}
{%- endmacro %}

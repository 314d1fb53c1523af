{#- on-run-start: check every spark_incremental__* var (validate_config_vars; a var the
    spec marks `env`, e.g. the pinned clock, also from SPARK_INCREMENTAL_<NAME>); refuse
    dbt's --empty and --sample for a run that touches what the package keeps
    (_limited_inputs_refusal); and, when
    this dbt run or dbt build selects the base events models, the events table and the
    columns the package reads, and a restatement's range (spark_incremental__restate
    without a model) against the manifest (bad vars, missing columns and a bad range stop
    here, before anything is written), and the models spark_incremental__restate names
    (_check_restate_models: one that cannot be restated stops the run, one not selected
    is a warning); then, unless the run touches nothing the package keeps
    (_run_takes_lock), check that no two models of the package's kind share a name
    (_check_model_names: versions of a model), the described changes and their plan (bad change input and
    a refused rebuild stop here too, before the lock), take the run lock, plan the changes
    again under it (the plan the run records and applies: a run that ended in between may
    have written what the plan reads), apply spark_incremental__models_to_remove and
    forget the models fed by the events window whose table is gone
    (_forget_missing_tables). An error of the package's after the lock releases it first
    (_stop_run; dbt runs no end hook after a failed start hook). Use as:
    on-run-start: "{{ spark_incremental.start_run() }}" -#}
{% macro start_run() -%}
  {{- return(adapter.dispatch('start_run', 'spark_incremental')()) -}}
{%- endmacro %}


{% macro default__start_run() -%}
  {%- if not execute -%}
    {{- return('') -}}
  {%- endif -%}
  {%- set values = spark_incremental.validate_config_vars() -%}
  {%- if not spark_incremental._command_writes() -%}
    {{- return('') -}}
  {%- endif -%}
  {%- set refusal = spark_incremental._limited_inputs_refusal(values) -%}
  {%- if refusal -%}
    {%- do exceptions.raise_compiler_error(refusal) -%}
  {%- endif -%}
  {%- do spark_incremental._check_restate_models() -%}
  {%- set check_events = values.events_enabled and not values.offline_compile
      and spark_incremental._selects_base_models() -%}
  {%- if check_events and not spark_incremental._selection_known()
        and not spark_incremental._relation_exists_now(spark_incremental.events_relation()) -%}
    {#- dbt retry, whose selection is unknown: the run it repeats passed this check, so
        with no events table it selected none of the events pipeline (unless the table
        went since); a base model that the retry runs still stops with the check's
        message, from the run limits -#}
    {%- set check_events = false -%}
    {%- do spark_incremental._log('dbt retry: the events table '
        ~ spark_incremental.events_relation() | string ~ ' does not exist, so the run this retry repeats'
        ~ ' ran no model of the events pipeline; the events table is not checked') -%}
  {%- endif -%}
  {%- if check_events -%}
    {%- do spark_incremental._check_events_table() -%}
    {#- a restatement of the event pipeline: its range is checked against the manifest here -#}
    {%- do spark_incremental._events_restatement(spark_incremental._parse_ts(values.start_date)) -%}
    {%- if values.device_created_timestamp is none or values.device_sent_timestamp is none -%}
      {%- do spark_incremental._log('spark_incremental__device_'
          ~ ('created' if values.device_created_timestamp is none else 'sent')
          ~ '_timestamp is null: no late-sent filter (spark_incremental__days_late_allowed is not applied)') -%}
    {%- endif -%}
  {%- endif -%}
  {%- if not spark_incremental._run_takes_lock(values) -%}
    {%- do spark_incremental._log('this run selects no model whose table the package writes or keeps'
        ~ ' state for, nor one that reads such a table: no run lock, no manifest row') -%}
    {{- return('') -}}
  {%- endif -%}
  {%- do spark_incremental._check_model_names() -%}
  {%- set changes = spark_incremental.get_changes() -%}
  {%- if changes | length > 0 -%}
    {#- the check: bad change input and a refused rebuild stop the run before the lock -#}
    {%- set checked = spark_incremental._refresh_plans(changes) -%}
    {%- do spark_incremental._stop_on_refused_plan(checked) -%}
  {%- endif -%}
  {#- appends overwrite their own partition in dynamic mode: make sure the log says so -#}
  {%- do spark_incremental._ensure_dynamic_overwrite(spark_incremental.ensure_manifest_log(), listed=true) -%}
  {%- do spark_incremental._acquire_run_lock() -%}
  {%- if changes | length > 0 -%}
    {#- the plan the run applies, made again under the lock, once what an interrupted run
        left in the reached models is repaired: a run that ended since the check may have
        written the models' tables and states that the plan reads -#}
    {%- set repaired = spark_incremental._recover_reached_models(changes) -%}
    {%- set planned = spark_incremental._refresh_plans(changes) -%}
    {%- if planned.plans != checked.plans -%}
      {%- do spark_incremental._log('the refresh plan changed between the check before the run lock and the'
          ~ ' plan under it: ' ~ ('this run repaired what an interrupted run left in ' ~ repaired | join(', ')
          ~ ', or another run wrote a model the changes reach' if repaired else 'another run wrote a model the changes reach')
          ~ '; this run applies the plan made under the lock') -%}
    {%- endif -%}
    {%- do spark_incremental._settle_refresh_plan(planned) -%}
  {%- endif -%}
  {%- do spark_incremental.remove_models() -%}
  {%- if values.events_enabled and not values.offline_compile -%}
    {%- do spark_incremental._forget_missing_tables() -%}
  {%- endif -%}
  {#- the hook succeeded: the end hook releases the lock from here -#}
  {%- do spark_incremental._run_cache('run_lock').pop('start_hook', none) -%}
  {{- return('') -}}
{%- endmacro %}

{#- The models spark_incremental__restate names ({model: name or list, start, end}), checked
    before anything is written (start_run, before the run lock; the plan preview too).
    A model entry redoes time intervals, so each named model must be an enabled
    managed_incremental model with a time_column; the event pipeline is restated by an
    entry without a model, which in a project without the pipeline
    (spark_incremental__events_enabled false) would restate nothing: it stops the run,
    listing what restate accepts. A misspelt name, a disabled model or one without time
    intervals (another managed_incremental model, a model tagged spark_incremental, any
    other model) stops the run with one message per bad name, listing what restate
    accepts. selection: in a run, a named model this run does not select is a warning
    (nothing is restated for it; select it to restate it), not an error; false in the
    plan preview, which has no selection. -#}
{% macro _check_restate_models(selection=true) -%}
  {%- set raw = spark_incremental.get_config_var('restate') -%}
  {%- set entries = ([raw] if raw is mapping else raw) if raw else [] -%}
  {%- set names = spark_incremental._restated_model_names() -%}
  {%- set pipeline = [] -%}
  {%- for entry in entries if entry is mapping and not entry.get('model') -%}
    {%- do pipeline.append(entry) -%}
  {%- endfor -%}
  {%- set no_pipeline = pipeline | length > 0 and not spark_incremental._events_enabled() -%}
  {%- if names | length == 0 and not no_pipeline -%}
    {{- return(none) -}}
  {%- endif -%}

  {%- set interval_models = {} -%}
  {%- for node in graph.nodes.values() if node.resource_type == 'model'
        and node.config.materialized == 'managed_incremental' and node.config.get('time_column') -%}
    {%- do interval_models.update({node.name: node}) -%}
  {%- endfor -%}
  {%- set accepted = "restate accepts the enabled managed_incremental models with time intervals (a time_column): "
      ~ (interval_models.keys() | sort | join(', ') if interval_models else 'none in this project')
      ~ (", and an entry without a model ({start, end}) for the event pipeline"
         if spark_incremental._events_enabled() else '') ~ "." -%}

  {%- set errors = [] -%}
  {%- if no_pipeline -%}
    {#- without the events pipeline an entry without a model would restate nothing -#}
    {%- do errors.append("spark_incremental: spark_incremental__restate = "
        ~ spark_incremental._config_value_shown(pipeline[0] if pipeline | length == 1 else pipeline)
        ~ ": an entry without a model restates the event pipeline, and this project has none"
        ~ " (spark_incremental__events_enabled is false), so there is nothing to restate; nothing was"
        ~ " restated. To restate a managed_incremental model's time intervals, give model:"
        ~ " {model: name, start, end}. " ~ accepted) -%}
  {%- endif -%}
  {%- set tracked = spark_incremental.tracked_models() -%}
  {%- for name in names | unique if name not in interval_models -%}
    {%- set node = spark_incremental._node_by_name(name) -%}
    {%- if node is none -%}
      {%- set why = "is not an enabled model of this project" -%}
    {%- elif name in tracked -%}
      {%- set why = "is fed by the event pipeline, which has no time intervals: restate the pipeline with an"
          ~ " entry without a model ({start, end}), which reprocesses every model tagged spark_incremental" -%}
    {%- else -%}
      {%- set why = "(materialized '" ~ node.config.materialized ~ "') has no time intervals (no time_column)" -%}
    {%- endif -%}
    {%- do errors.append("spark_incremental: spark_incremental__restate: model '" ~ name ~ "' " ~ why
        ~ "; nothing was restated. " ~ accepted) -%}
  {%- endfor -%}
  {%- if errors | length > 0 -%}
    {%- do exceptions.raise_compiler_error(errors | join('\n')) -%}
  {%- endif -%}

  {%- if selection -%}
    {%- set selected = spark_incremental._selected_ids() -%}
    {%- for name in names | unique if interval_models[name].unique_id not in selected -%}
      {%- do spark_incremental._warn("spark_incremental__restate: model '" ~ name ~ "' is not selected in this"
          ~ " run: nothing is restated for it (select it, e.g. --select " ~ name ~ ", to restate it)") -%}
    {%- endfor -%}
  {%- endif -%}
{%- endmacro %}


{#- The model names spark_incremental__restate gives ({model: name or list, ...}, or a list
    of those), in order, as given (unchecked: _check_restate_models checks them). -#}
{% macro _restated_model_names() -%}
  {%- set raw = spark_incremental.get_config_var('restate') -%}
  {%- set names = [] -%}
  {%- for entry in (([raw] if raw is mapping else raw) if raw else []) if entry is mapping and entry.get('model') -%}
    {%- do names.extend([entry.model] if entry.model is string else entry.model) -%}
  {%- endfor -%}
  {{- return(names) -}}
{%- endmacro %}

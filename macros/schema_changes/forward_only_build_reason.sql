{#- A forward-only model is never rebuilt by a model change: a build reason that is a
    change of the model's config (a fingerprint key: min, max, unique_key, partition_by,
    ...) is dropped and reported as kept. A changed mutability type or along column cannot
    be carried forward (the recorded state belongs to the old type, the high-water mark
    to the old column): that is an error asking for --full-refresh. Builds for other reasons (first build, --full-refresh, no state)
    stay. Returns {reason: the build reason or none, kept: text or none}. -#}
{% macro _forward_only_build_reason(cfg, state, build_reason, flags) -%}
  {%- if build_reason is none or not cfg.forward_only.forward_only or flags.full_refresh
        or not flags.target_exists or state is none -%}
    {{- return({'reason': build_reason, 'kept': none}) -}}
  {%- endif -%}
  {%- if state.mutability_type != cfg.mutability_type -%}
    {%- do exceptions.raise_compiler_error("spark_incremental: model '" ~ cfg.model ~ "' is forward_only and its"
        ~ " mutability type changed from " ~ state.mutability_type ~ " to " ~ cfg.mutability_type ~ ": a forward-only"
        ~ " model is never rebuilt by a model change, and its recorded state belongs to the old type. Revert the"
        ~ " type, or run it once with --full-refresh to rebuild it. " ~ spark_incremental._rebuild_cost_text(cfg.model)) -%}
  {%- endif -%}
  {#- nor can a changed along column: the recorded high-water mark is the old column's -#}
  {%- set old_along = spark_incremental._managed_along_changed(cfg, state) -%}
  {%- if old_along is not none -%}
    {%- do exceptions.raise_compiler_error("spark_incremental: model '" ~ cfg.model ~ "' is forward_only and its"
        ~ " along column changed from " ~ old_along ~ " to " ~ cfg.along ~ ": a forward-only model is never rebuilt"
        ~ " by a model change, and its recorded high-water mark belongs to the old column. Revert the column, or run"
        ~ " it once with --full-refresh to rebuild it. " ~ spark_incremental._rebuild_cost_text(cfg.model)) -%}
  {%- endif -%}
  {%- if ' changed from ' in build_reason -%}
    {{- return({'reason': none, 'kept': 'forward_only: kept the table although ' ~ build_reason.replace('full refresh: ', '')}) -}}
  {%- endif -%}
  {{- return({'reason': build_reason, 'kept': none}) -}}
{%- endmacro %}

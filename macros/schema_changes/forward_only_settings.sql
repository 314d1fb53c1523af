{#- A model's forward-only settings: forward_only (bool, default false) and
    on_destructive_change (error | warn | allow, default error). -#}
{% macro _forward_only_settings(model_name, forward_only, on_destructive_change) -%}
  {%- set where = "spark_incremental: model '" ~ model_name ~ "': " -%}
  {%- set forward_only = spark_incremental._model_config_value(where, 'forward_only', forward_only, 'boolean', false,
      "true or false (or the text 'true' / 'false', any case; default false)") -%}
  {%- set mode = (on_destructive_change or 'error') | string | lower -%}
  {%- if mode not in ['error', 'warn', 'allow'] -%}
    {%- do exceptions.raise_compiler_error(
        where ~ "on_destructive_change = '" ~ on_destructive_change ~ "' is not allowed; use error (default), warn or allow") -%}
  {%- endif -%}
  {{- return({'forward_only': forward_only is sameas true, 'on_destructive_change': mode}) -}}
{%- endmacro %}

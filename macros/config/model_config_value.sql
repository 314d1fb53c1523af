{#- A model config's value, read by the rule the vars follow (_check_config_var): a config
    set from env_var() arrives as text, so 'true' / 'false' (any case) is a boolean and
    digit text a whole number, as they are for the vars. kind: 'boolean' or 'integer'
    (then minimum); unset (none) gives `default`. A bad value stops the run before
    anything is written, naming the model, the key, the value and its type, and what is
    allowed (`allowed`). -#}
{% macro _model_config_value(prefix, key, value, kind, default, allowed, minimum=0) -%}
  {%- if value is none -%}
    {{- return(default) -}}
  {%- endif -%}
  {%- set checked = spark_incremental._check_config_var({'type': kind, 'minimum': minimum}, value) -%}
  {%- if checked.problem is not none -%}
    {%- do exceptions.raise_compiler_error(prefix ~ key ~ " = " ~ spark_incremental._config_value_shown(value, quote_text=true)
        ~ " (" ~ spark_incremental._config_value_type(value) ~ ") is not allowed: it must be " ~ allowed ~ ".") -%}
  {%- endif -%}
  {{- return(checked.value) -}}
{%- endmacro %}

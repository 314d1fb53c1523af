{#- The along column (or indicator) the model's state was recorded with, when it is not
    the model's along now: its high-water mark and type belong to that old column. none
    when it is the same, or when the state predates fingerprints that record it. -#}
{% macro _managed_along_changed(cfg, state) -%}
  {%- set recorded = ((state.state or {}).get('fingerprint') or {}) if state else {} -%}
  {%- set old_along = recorded.get('along') if recorded is mapping else none -%}
  {%- if old_along is none or (old_along | string | lower) == (cfg.along | string | lower) -%}
    {{- return(none) -}}
  {%- endif -%}
  {{- return(old_along) -}}
{%- endmacro %}

{#- spark_incremental__app_ids as a SQL list of string literals, for `app_id_column in (...)`:
    'web', 'mob'. Every filter on the apps (the window's, the nothing-new rule's, the
    unmatched-apps warning's) quotes them here. -#}
{% macro _quoted_app_ids(session_vars) -%}
  {%- set quoted = [] -%}
  {%- for app_id in session_vars.app_ids -%}
    {%- do quoted.append(spark_incremental._quote(app_id)) -%}
  {%- endfor -%}
  {{- return(quoted | join(', ')) -}}
{%- endmacro %}

{#- A whole number of minutes in words: '1 minute', '15 minutes'. -#}
{% macro _minutes_text(minutes) -%}
  {{- return(minutes ~ (' minute' if minutes == 1 else ' minutes')) -}}
{%- endmacro %}

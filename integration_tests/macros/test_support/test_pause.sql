{#- Test support: a hook that keeps dbt busy on the client side (no Spark work) when the
    var test_pause is true, so a fault test can kill dbt at a known point. -#}
{% macro test_pause() -%}
  {%- if execute and var('test_pause', false) -%}
    {%- do log('test_pause: started', info=true) -%}
    {%- set counter = {'n': 0} -%}
    {%- for i in range(var('test_pause_outer', 3000)) -%}
      {%- for j in range(10000) -%}
        {%- do counter.update({'n': j}) -%}
      {%- endfor -%}
    {%- endfor -%}
    {%- do log('test_pause: ended', info=true) -%}
  {%- endif -%}
  {{- return('') -}}
{%- endmacro %}

{#- on-run-start / on-run-end hook for the fault tests: pauses the run when the
    var test_pause is true, so a fault test can kill dbt at a known point. With
    test_pause_release (a table name) the pause ends as soon as that table holds a row
    (polled; at most test_pause_polls queries), else it is a long busy loop. -#}
{% macro test_pause() -%}
  {%- if execute and var('test_pause', false) -%}
    {%- do log('test_pause: started', info=true) -%}
    {%- set release = var('test_pause_release', none) -%}
    {%- if release -%}
      {%- set state = {'released': false} -%}
      {%- for i in range(var('test_pause_polls', 3000)) if not state.released -%}
        {%- if run_query('select count(*) from ' ~ release).columns[0].values()[0] > 0 -%}
          {%- do state.update({'released': true}) -%}
        {%- endif -%}
      {%- endfor -%}
    {%- else -%}
      {%- set counter = {'n': 0} -%}
      {%- for i in range(var('test_pause_outer', 3000)) -%}
        {%- for j in range(10000) -%}
          {%- do counter.update({'n': j}) -%}
        {%- endfor -%}
      {%- endfor -%}
    {%- endif -%}
    {%- do log('test_pause: ended', info=true) -%}
  {%- endif -%}
  {{- return('') -}}
{%- endmacro %}

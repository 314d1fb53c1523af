{#- Run statements with a Spark session conf set, then set it back to what it was
    (the package resets every conf it changes). Uses adapter.execute, which works in
    hooks on Spark 3.5 + PyHive. -#}
{% macro _execute_with_conf(key, value, statements) -%}
  {%- set rows = spark_incremental._fetch_rows('set ' ~ key) -%}
  {%- set previous = rows[0][1] if rows | length > 0 else none -%}
  {%- do adapter.execute('set ' ~ key ~ ' = ' ~ value, fetch=false) -%}
  {%- for sql in statements -%}
    {%- do adapter.execute(sql, fetch=false) -%}
  {%- endfor -%}
  {%- if previous is none or previous == '<undefined>' -%}
    {%- do adapter.execute('reset ' ~ key, fetch=false) -%}
  {%- else -%}
    {%- do adapter.execute('set ' ~ key ~ ' = ' ~ previous, fetch=false) -%}
  {%- endif -%}
{%- endmacro %}

{#- run-operations used by integration_tests/demo/run_demo.py (`make demo`). -#}

{#- Append one CSV batch (no header, columns in demo_event_columns() order) to
    <schema>.events, creating the schema and table on first use. -#}
{% macro demo_load_batch(schema, path) -%}
  {%- set columns = demo_event_columns() -%}
  {%- do run_query('create schema if not exists ' ~ schema) -%}
  {%- set ddl -%}
    create table if not exists {{ schema }}.events (
      {%- for name, type in columns %}
      {{ name }} {{ type }}{{ "," if not loop.last }}
      {%- endfor %}
    ) using parquet
  {%- endset -%}
  {%- do run_query(ddl) -%}
  {%- set insert -%}
    insert into {{ schema }}.events
    select
      {%- for name, type in columns %}
      cast(_c{{ loop.index0 }} as {{ type }}) as {{ name }}{{ "," if not loop.last }}
      {%- endfor %}
    from csv.`{{ path }}`
  {%- endset -%}
  {%- do run_query(insert) -%}
  {%- set total = run_query('select count(*) from ' ~ schema ~ '.events').columns[0].values()[0] -%}
  {%- do log('demo: loaded ' ~ path ~ ' into ' ~ schema ~ '.events (now ' ~ total ~ ' rows)', info=true) -%}
{%- endmacro %}


{% macro demo_event_columns() -%}
  {{- return([
      ('event_id', 'string'),
      ('domain_sessionid', 'string'),
      ('domain_userid', 'string'),
      ('collector_tstamp', 'timestamp'),
      ('dvce_created_tstamp', 'timestamp'),
      ('dvce_sent_tstamp', 'timestamp'),
      ('load_tstamp', 'timestamp'),
      ('app_id', 'string'),
      ('event_name', 'string'),
      ('page_url', 'string'),
  ]) -}}
{%- endmacro %}


{#- Logs `demo_count: <table>=<rows>` for each of `tables` (`-` when missing), or for
    every table and view of `schema` when `tables` is none. -#}
{% macro demo_row_counts(schema, tables=none) -%}
  {%- set existing = [] -%}
  {#- show tables also lists the session's temporary views (dbt's __dbt_tmp ones) -#}
  {%- for row in run_query('show tables in ' ~ schema).rows if not row[2] -%}
    {%- do existing.append(row[1] | lower) -%}
  {%- endfor -%}
  {%- for table in (tables if tables is not none else existing | sort) -%}
    {%- if table | lower in existing -%}
      {%- set n = run_query('select count(*) from ' ~ schema ~ '.' ~ table).columns[0].values()[0] -%}
    {%- else -%}
      {%- set n = '-' -%}
    {%- endif -%}
    {%- do log('demo_count: ' ~ table ~ '=' ~ n, info=true) -%}
  {%- endfor -%}
{%- endmacro %}

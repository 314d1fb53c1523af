{#- Materialization for the package's views whose SQL changes only with the project (the
    manifest view): create or replace the view with the md5 of its compiled SQL among its
    table properties, and leave it alone, with no statement, when dbt's start-of-run
    listing shows the view with that md5 (so a run costs no round trip for it). Any change
    of its SQL (a new package version, another schema, a var it reads) changes the md5 and
    replaces it; a table of the same name is dropped first; --full-refresh replaces it. -#}
{% materialization spark_incremental_state_view, adapter='spark' %}
  {%- set target_relation = this.incorporate(type='view') -%}
  {%- set existing = adapter.get_relation(database=this.database, schema=this.schema, identifier=this.identifier) -%}
  {%- set sql_md5 = local_md5(compiled_code) -%}

  {{ run_hooks(pre_hooks) }}

  {%- if existing is not none and existing.is_view and not should_full_refresh()
        and spark_incremental._listed_md5(existing, 'spark_incremental.sql_md5') == sql_md5 -%}
    {%- call noop_statement('main', 'kept') -%}{%- endcall -%}
  {%- else -%}
    {%- if existing is not none and not existing.is_view -%}
      {%- do adapter.drop_relation(existing) -%}
    {%- endif -%}
    {%- call statement('main') -%}
      create or replace view {{ target_relation }}
      tblproperties ('spark_incremental.sql_md5' = '{{ sql_md5 }}')
      as {{ compiled_code }}
    {%- endcall -%}
  {%- endif -%}

  {{ run_hooks(post_hooks) }}

  {{ return({'relations': [target_relation]}) }}
{% endmaterialization %}


{#- Materialization for the package's state tables (the manifest log): create the table
    when it is missing, otherwise leave it and its rows alone. It is rebuilt (emptied)
    only by --full-refresh when the model's full_refresh config allows it, which the
    package ties to spark_incremental__allow_refresh. -#}
{% materialization spark_incremental_state_table, adapter='spark' %}
  {%- set target_relation = this.incorporate(type='table') -%}
  {%- set existing = adapter.get_relation(database=this.database, schema=this.schema, identifier=this.identifier) -%}
  {%- set rebuild = existing is not none and should_full_refresh() -%}

  {{ run_hooks(pre_hooks) }}

  {%- if rebuild -%}
    {%- do spark_incremental._log('full refresh of ' ~ target_relation ~ ' allowed (spark_incremental__allow_refresh): all recorded state is forgotten') -%}
    {%- do adapter.drop_relation(existing) -%}
  {%- elif existing is not none and flags.FULL_REFRESH -%}
    {%- do spark_incremental._log('kept ' ~ target_relation ~ ' on --full-refresh (set spark_incremental__allow_refresh: true to rebuild it)') -%}
  {%- endif -%}

  {%- call statement('main') -%}
    {%- if existing is none or rebuild -%}
      {{ spark_incremental._manifest_create_sql(target_relation) }}
    {%- else -%}
      {#- logs created by 0.1.0 lack the option the appends rely on; idempotent -#}
      alter table {{ target_relation }} set serdeproperties ('partitionOverwriteMode' = 'dynamic')
    {%- endif -%}
  {%- endcall -%}

  {{ run_hooks(post_hooks) }}

  {{ return({'relations': [target_relation]}) }}
{% endmaterialization %}

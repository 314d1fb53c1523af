{#- Materialization for the package's state tables (the manifest log, the refresh plan
    log): create the table from the model's typed, empty select when it is missing,
    otherwise leave it and its rows alone (no data statement: a run costs at most one
    cheap DDL). It is rebuilt (emptied) only by --full-refresh when the model's
    full_refresh config allows it, which the package ties to spark_incremental__allow_refresh;
    a rebuilt manifest log gets the open run locks back (_open_lock_rows), this run's
    among them.
    Config: partition_by (columns, last in the select), options (table options, applied
    again to an existing table, so tables created by older versions get them),
    meta.forgets (what a rebuild forgets, in words, for the log lines; default 'all
    recorded state': with the events pipeline on, every tracked model is then backfilled
    from start_date, which the line says; the line says nothing of events otherwise). -#}
{% materialization spark_incremental_state_table, adapter='spark' %}
  {%- set target_relation = this.incorporate(type='table') -%}
  {%- set existing = adapter.get_relation(database=this.database, schema=this.schema, identifier=this.identifier) -%}
  {%- set rebuild = existing is not none and should_full_refresh() -%}
  {%- set options = config.get('options') or {} -%}
  {%- set partition_by = config.get('partition_by') or [] -%}
  {%- set partition_by = [partition_by] if partition_by is string else partition_by -%}

  {{ run_hooks(pre_hooks) }}

  {%- set forgets = (config.get('meta') or {}).get('forgets') -%}
  {%- set backfill = ': every tracked model is then backfilled from spark_incremental__start_date'
      if forgets is none and spark_incremental._events_enabled() else '' -%}
  {%- set forgets = forgets or 'all recorded state' -%}

  {#- the manifest log holds the run locks: the open ones outlive its rebuild -#}
  {%- set log_relation = spark_incremental.manifest_log_relation() -%}
  {%- set is_log = (target_relation.schema ~ '.' ~ target_relation.identifier) | lower
      == (log_relation.schema ~ '.' ~ log_relation.identifier) | lower -%}
  {%- set lock_rows = spark_incremental._open_lock_rows() if rebuild and is_log else [] -%}
  {%- if rebuild -%}
    {%- do spark_incremental._log('full refresh of ' ~ target_relation ~ ' allowed (spark_incremental__allow_refresh):'
        ~ ' rebuilt empty, forgetting ' ~ forgets ~ backfill
        ~ ((', keeping the open run lock' ~ ('s' if lock_rows | map(attribute='state') | unique | list | length != 1 else ''))
           if lock_rows else '')) -%}
    {%- do adapter.drop_relation(existing) -%}
    {#- nothing read from the old log may answer later in this run -#}
    {%- do spark_incremental._forget_manifest_reads() -%}
  {%- elif existing is not none and flags.FULL_REFRESH -%}
    {%- do spark_incremental._log('kept ' ~ target_relation ~ ' on --full-refresh (spark_incremental__allow_refresh:'
        ~ ' true rebuilds it empty, forgetting ' ~ forgets ~ backfill ~ ')') -%}
  {%- endif -%}

  {%- if existing is none or rebuild -%}
    {%- call statement('main') -%}
      create table if not exists {{ target_relation }}
      using parquet
      {%- if options %}
      options ({{ spark_incremental._state_table_options(options) }})
      {%- endif %}
      {%- if partition_by | length > 0 %}
      partitioned by ({{ partition_by | join(', ') }})
      {%- endif %}
      as {{ compiled_code }}
    {%- endcall -%}
    {%- do spark_incremental.append_manifest_rows(lock_rows) -%}
  {%- elif options and not spark_incremental._state_table_options_set(target_relation, options) -%}
    {#- idempotent: tables created by 0.1.0 lack the options the appends rely on -#}
    {%- call statement('main') -%}
      alter table {{ target_relation }} set serdeproperties ({{ spark_incremental._state_table_options(options) }})
    {%- endcall -%}
    {%- do spark_incremental._run_cache('table_options').setdefault(target_relation | string, {}).update(options) -%}
  {%- else -%}
    {%- call noop_statement('main', 'kept') -%}{%- endcall -%}
  {%- endif -%}

  {{ run_hooks(post_hooks) }}

  {{ return({'relations': [target_relation]}) }}
{% endmaterialization %}


{#- Did this invocation set every one of these options on the table already (start_run
    sets the manifest log's, _ensure_dynamic_overwrite)? -#}
{% macro _state_table_options_set(relation, options) -%}
  {%- set done = spark_incremental._run_cache('table_options').get(relation | string, {}) -%}
  {%- for key, value in options.items() if done.get(key) != value -%}
    {{- return(false) -}}
  {%- endfor -%}
  {{- return(true) -}}
{%- endmacro %}


{#- {'key': 'value'} -> 'key' = 'value', ... -#}
{% macro _state_table_options(options) -%}
  {%- set pairs = [] -%}
  {%- for key, value in options.items() -%}
    {%- do pairs.append(spark_incremental._quote(key) ~ ' = ' ~ spark_incremental._quote(value)) -%}
  {%- endfor -%}
  {{- return(pairs | join(', ')) -}}
{%- endmacro %}

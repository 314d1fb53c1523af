{#- Make `insert overwrite ... partition (cols)` on a file-source table replace only the
    partitions it writes, through the table's own option partitionOverwriteMode = dynamic.
    The package never changes a session conf for it: on a shared session a sibling model
    could switch the mode back under a running insert (which would then delete every
    partition of its target), and a failed statement would leave it changed. Idempotent,
    one metastore call; also fixes tables created before the option was used, or by hand.
    Noted for the invocation (_run_cache 'table_options'), so the state table
    materialization does not set the manifest log's option again after start_run (every
    call here still sets it: a table rebuilt since would lack it). listed: trust dbt's
    listing of the schema at the start of this invocation (start_run, before anything is
    rebuilt): a table listed with the option is left alone. -#}
{% macro _ensure_dynamic_overwrite(relation, listed=false) -%}
  {%- set found = adapter.get_relation(database=relation.database, schema=relation.schema,
                                       identifier=relation.identifier) if listed else none -%}
  {%- if found is none or not modules.re.search('Storage Properties: \\[([^\\]]*, )?partitionOverwriteMode=dynamic[,\\]]',
                                                found.information or '') -%}
    {%- do adapter.execute('alter table ' ~ relation ~ " set serdeproperties ('partitionOverwriteMode' = 'dynamic')", fetch=false) -%}
  {%- endif -%}
  {%- do spark_incremental._run_cache('table_options').setdefault(relation | string, {}).update({'partitionOverwriteMode': 'dynamic'}) -%}
{%- endmacro %}

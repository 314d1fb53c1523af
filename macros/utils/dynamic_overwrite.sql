{#- Make `insert overwrite ... partition (cols)` on a file-source table replace only the
    partitions it writes, through the table's own option partitionOverwriteMode = dynamic.
    The package never changes a session conf for it: on a shared session a sibling model
    could switch the mode back under a running insert (which would then delete every
    partition of its target), and a failed statement would leave it changed. Idempotent,
    one metastore call; also fixes tables created before the option was used, or by hand. -#}
{% macro _ensure_dynamic_overwrite(relation) -%}
  {%- do adapter.execute('alter table ' ~ relation ~ " set serdeproperties ('partitionOverwriteMode' = 'dynamic')", fetch=false) -%}
{%- endmacro %}

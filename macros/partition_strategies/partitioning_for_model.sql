{#- The partitioning of a managed_incremental model under its partition_strategy, or none
    when it has none. The date hierarchy comes from the model's time_column, else its
    mutability's along / indicator column. An existing table keeps its level, except on
    --full-refresh (a rebuild chooses again). query_columns: [(name, type)] of `sql`. -#}
{% macro _partitioning_for_model(cfg, target, sql, query_columns, full_refresh) -%}
  {%- if cfg.partition_strategy is none -%}
    {{- return(none) -}}
  {%- endif -%}
  {%- set column = cfg.intervals.time_column if cfg.intervals else cfg.along -%}
  {%- set types = {} -%}
  {%- for name, data_type in query_columns -%}
    {%- do types.update({name | lower: data_type | lower}) -%}
  {%- endfor -%}
  {%- set data_type = types.get(column | lower) if column else none -%}
  {%- if column and data_type is none -%}
    {%- do exceptions.raise_compiler_error("spark_incremental: model '" ~ cfg.model ~ "': partition_strategy '"
        ~ cfg.partition_strategy ~ "' partitions by a level of " ~ column ~ ", which is not a column of the model") -%}
  {%- endif -%}
  {%- set existing = none -%}
  {%- if not full_refresh and adapter.get_relation(database=target.database, schema=target.schema, identifier=target.identifier) is not none -%}
    {%- set existing = spark_incremental._partition_columns(target) -%}
  {%- endif -%}
  {{- return(spark_incremental._resolve_partitioning(cfg.model, cfg.partition_strategy, cfg.partition_by, column,
      data_type or '', cfg.intervals.unit if cfg.intervals else none, sql, existing)) -}}
{%- endmacro %}

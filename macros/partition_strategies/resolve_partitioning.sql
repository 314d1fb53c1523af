{#- The partitioning of a managed_incremental model under its partition_strategy:
      none         the model's partition_by as written (default);
      indicator    the level of the indicator / time column's unit (interval_unit, else day);
      user         the model's partition_by, accepted only if it names a level of the date
                   hierarchy (a level name or its column: ds, ds_month, ds_year, ...);
      distribution the level whose estimated partition size (query rows / level
                   cardinality) is closest to spark_incremental__target_partition_rows
                   (default 1,000,000); finer levels win ties. One query, logged.
    When the table exists, its partition column decides the level (partitioning is chosen
    when the table is built). column/data_type: the hierarchy column and its type
    (date or timestamp). Returns {partition_by: [names], add_column: none | {column,
    expression}, level, description}. -#}
{% macro _resolve_partitioning(model_name, strategy, partition_by, column, data_type, unit, sql, existing_partitions=none) -%}
  {%- set where = "spark_incremental: model '" ~ model_name ~ "': " -%}
  {%- set given = [partition_by] if partition_by is string else (partition_by or []) | list -%}
  {%- if strategy is none -%}
    {{- return({'partition_by': given, 'add_column': none, 'level': none, 'description': none}) -}}
  {%- endif -%}
  {%- if strategy not in ['indicator', 'user', 'distribution'] -%}
    {%- do exceptions.raise_compiler_error(
        where ~ "partition_strategy = '" ~ strategy ~ "' is not allowed; use indicator, user or distribution") -%}
  {%- endif -%}
  {%- if column is none -%}
    {%- do exceptions.raise_compiler_error(
        where ~ "partition_strategy '" ~ strategy ~ "' needs a date hierarchy: a time_column or an"
        ~ " incremental_indicator / along column of type date or timestamp") -%}
  {%- endif -%}
  {%- if not (data_type.startswith('date') or data_type.startswith('timestamp')) -%}
    {%- do exceptions.raise_compiler_error(
        where ~ "partition_strategy '" ~ strategy ~ "' needs a date hierarchy, but " ~ column ~ " is "
        ~ data_type ~ "; a date or timestamp column has one (day, month, year)") -%}
  {%- endif -%}
  {%- set levels = spark_incremental._date_hierarchy(column | lower, data_type) -%}
  {%- set by_name = {} -%}
  {%- for level in levels -%}
    {%- do by_name.update({level.level: level, level.column: level}) -%}
  {%- endfor -%}
  {%- set described = [] -%}
  {%- for level in levels -%}
    {%- do described.append(level.column ~ ' (' ~ level.level ~ ')') -%}
  {%- endfor -%}
  {%- if existing_partitions -%}
    {%- set existing = existing_partitions | map('lower') | list -%}
    {%- if existing | length == 1 and existing[0] in by_name -%}
      {%- set chosen = by_name[existing[0]] -%}
      {{- return(spark_incremental._partitioning_result(chosen, 'kept the table\'s ' ~ chosen.level ~ ' partitions (' ~ chosen.column ~ ')')) -}}
    {%- endif -%}
  {%- endif -%}
  {%- if strategy == 'user' -%}
    {%- if given | length != 1 or (given[0] | lower) not in by_name -%}
      {%- do exceptions.raise_compiler_error(
          where ~ "partition_strategy 'user' accepts a partition_by that is one level of " ~ column
          ~ "'s date hierarchy: " ~ described | join(', ') ~ " (or the level's name); got partition_by = "
          ~ (given | join(', ') if given else 'nothing') ~ ", which is not a level of the hierarchy") -%}
    {%- endif -%}
    {%- set chosen = by_name[given[0] | lower] -%}
    {{- return(spark_incremental._partitioning_result(chosen, "user's partition_by: " ~ chosen.level ~ ' level (' ~ chosen.column ~ ')')) -}}
  {%- endif -%}
  {%- if strategy == 'indicator' -%}
    {%- set wanted = {'minute': 'hour', 'hour': 'hour', 'day': 'day', 'week': 'day', 'month': 'month'}.get(unit or 'day', 'day') -%}
    {%- set chosen = by_name.get(wanted) or by_name['day'] -%}
    {{- return(spark_incremental._partitioning_result(chosen, 'the ' ~ (unit or 'day') ~ ' unit of ' ~ column ~ ': ' ~ chosen.level ~ ' level (' ~ chosen.column ~ ')')) -}}
  {%- endif -%}
  {{- return(spark_incremental._partitioning_by_distribution(model_name, levels, sql)) -}}
{%- endmacro %}


{% macro _partitioning_result(level, description) -%}
  {{- return({
      'partition_by': [level.column],
      'add_column': none if level.column == level.expression else {'column': level.column, 'expression': level.expression},
      'level': level.level,
      'description': description,
  }) -}}
{%- endmacro %}

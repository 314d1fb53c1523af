{#- AtScale's distribution strategy: count the query's rows and each level's distinct
    values in one query; estimated rows per partition = rows / cardinality; choose the
    level closest to the target (finer wins ties) and log the choice with the estimates. -#}
{% macro _partitioning_by_distribution(model_name, levels, sql) -%}
  {%- set target_rows = spark_incremental.get_config_var('target_partition_rows') -%}
  {%- set count_sql -%}
    select
        count(*) as row_count,
        {%- for level in levels %}
        count(distinct {{ level.expression }}) as {{ level.level }}_cardinality{{ ',' if not loop.last }}
        {%- endfor %}
    from (
        {{ sql }}
    ) as __si_distribution
  {%- endset -%}
  {%- set row = spark_incremental._fetch_rows(count_sql)[0] -%}
  {%- set rows = row[0] | int -%}
  {%- set best = namespace(level=none, distance=none) -%}
  {%- set estimates = [] -%}
  {%- for level in levels -%}
    {%- set cardinality = [row[loop.index] | int, 1] | max -%}
    {%- set estimate = rows / cardinality -%}
    {%- set distance = (estimate - target_rows) | abs -%}
    {%- do estimates.append(level.level ~ ' ' ~ '{:,.0f}'.format(estimate) ~ ' (' ~ cardinality ~ ' partitions)') -%}
    {%- if best.distance is none or distance < best.distance -%}
      {%- set best.level = level -%}
      {%- set best.distance = distance -%}
    {%- endif -%}
  {%- endfor -%}
  {%- set description = 'distribution: ' ~ best.level.level ~ ' level (' ~ best.level.column ~ '), estimated rows per partition '
      ~ estimates | join(', ') ~ ' from ' ~ '{:,}'.format(rows) ~ ' rows; target ' ~ '{:,}'.format(target_rows | int) -%}
  {%- do spark_incremental._log(model_name ~ ': partition strategy ' ~ description) -%}
  {{- return(spark_incremental._partitioning_result(best.level, description)) -}}
{%- endmacro %}


{#- The model's query with the generated partition column, when the level needs one and
    the query does not already have it (query_columns: lower-case names). -#}
{% macro _partitioned_sql(sql, partitioning, query_columns=[]) -%}
  {%- if partitioning is none or partitioning.add_column is none or partitioning.add_column.column in query_columns -%}
    {{- return(sql) -}}
  {%- endif -%}
  {{- return('select __si_partitioned.*, ' ~ partitioning.add_column.expression ~ ' as ' ~ partitioning.add_column.column
      ~ '\nfrom (\n' ~ sql ~ '\n) as __si_partitioned') -}}
{%- endmacro %}

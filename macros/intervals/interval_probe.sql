{#- Which of a run's batches have anything to do, found with one query before any batch
    runs. A batch has work when one of its intervals holds rows in the model's output
    (the model SQL bound to the whole missing range, filtered the way a batch filters,
    only the time column read) or in the target (rows an earlier run wrote: a restated
    interval, or one whose source rows were removed, must be rewritten to lose them).
    Every other batch would write nothing and remove nothing: it is skipped, and its
    intervals are recorded as done. Only run with more than one batch (a single batch
    costs the same as the query). Returns {batches: the batches to run, empty: the
    skipped batches, intervals (M), with_rows (N), skipped (K: intervals in `empty`)}. -#}
{% macro _interval_probe(settings, target, sql, batches) -%}
  {%- set low, high = batches[0][0], batches[-1][1] -%}
  {%- set grain = settings.unit | upper -%}
  {%- set probe_sql -%}
    with

    model_rows as (
        {{ spark_incremental._interval_batch_sql(sql, settings, settings.time_column, low, high) }}
    ),

    target_rows as (
        select {{ settings.time_column }}
        from {{ target }}
        where {{ spark_incremental._interval_in_range(settings, low, high) }}
    ),

    both_rows as (
        select {{ settings.time_column }} from model_rows
        union all
        select {{ settings.time_column }} from target_rows
    ),

    final as (
        select distinct
            date_format(date_trunc('{{ grain }}', {{ settings.time_column }}), 'yyyy-MM-dd HH:mm:ss') as interval_start
        from both_rows
    )

    select * from final order by interval_start
  {%- endset -%}
  {%- set filled = [] -%}
  {%- for row in spark_incremental._fetch_rows(probe_sql) -%}
    {%- do filled.append(spark_incremental._parse_ts(row[0])) -%}
  {%- endfor -%}
  {%- set walk = namespace(at=0, intervals=0, with_rows=0, skipped=0) -%}
  {%- set kept, empty = [], [] -%}
  {%- for batch in batches -%}
    {%- set size = spark_incremental._interval_count(batch[0], batch[1], settings.unit) -%}
    {%- set found = namespace(count=0) -%}
    {%- for i in range(walk.at, filled | length) -%}
      {%- if filled[i] >= batch[1] -%}
        {%- break -%}
      {%- endif -%}
      {%- set walk.at = i + 1 -%}
      {%- if filled[i] >= batch[0] -%}
        {%- set found.count = found.count + 1 -%}
      {%- endif -%}
    {%- endfor -%}
    {%- set walk.intervals = walk.intervals + size -%}
    {%- set walk.with_rows = walk.with_rows + found.count -%}
    {%- if found.count > 0 -%}
      {%- do kept.append(batch) -%}
    {%- else -%}
      {%- do empty.append(batch) -%}
      {%- set walk.skipped = walk.skipped + size -%}
    {%- endif -%}
  {%- endfor -%}
  {{- return({'batches': kept, 'empty': empty, 'intervals': walk.intervals, 'with_rows': walk.with_rows,
              'skipped': walk.skipped}) -}}
{%- endmacro %}

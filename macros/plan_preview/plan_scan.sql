{#- What a scan of `relation` with the partition conditions `conditions` (a list of SQL
    conditions on its partition columns; [] = the whole table) reads, from metadata only:
    one query that lists the files of the selected partitions with their sizes and row
    counts (_metadata.file_path, _metadata.file_size and count(*): a Parquet count with no
    data column reads only the files' footers, never a data page). The partitions are those
    that hold files, as 'col=value'. Returns {relation, exists, partitions (list),
    files, bytes, estimated_rows (the rows in those files), by_partition ({'col=value':
    {values, files, bytes, rows}})}; a missing relation, or a view, reads nothing we can
    list: exists false, figures none. Results are kept per relation and filter for the
    invocation (a model's inputs are often shared). -#}
{% macro _plan_scan(relation, conditions=[]) -%}
  {%- set cache = graph.setdefault('spark_incremental_plan_scans', {}) -%}
  {%- set key = relation ~ ' where ' ~ (conditions | join(' and ')) -%}
  {%- if key in cache -%}
    {{- return(cache[key]) -}}
  {%- endif -%}
  {%- set result = {'relation': relation.schema ~ '.' ~ relation.identifier, 'exists': false, 'partitions': [],
                    'files': none, 'bytes': none, 'estimated_rows': none, 'by_partition': {}} -%}
  {%- set found = adapter.get_relation(database=relation.database, schema=relation.schema,
                                       identifier=relation.identifier) -%}
  {%- if found is none or found.is_view -%}
    {%- do cache.update({key: result}) -%}
    {{- return(result) -}}
  {%- endif -%}
  {%- set partition_columns = spark_incremental._partition_columns(found) -%}
  {%- set sql -%}
    with files as (
        select
            {%- for column in partition_columns %}
            cast({{ adapter.quote(column) }} as string) as p{{ loop.index0 }},
            {%- endfor %}
            _metadata.file_path as file_path,
            _metadata.file_size as file_size,
            count(*) as row_count
        from {{ found }}
        where {{ conditions | join(' and ') if conditions else 'true' }}
        group by all
    ),

    final as (
        select
            {%- for column in partition_columns %}
            p{{ loop.index0 }},
            {%- endfor %}
            count(*) as file_count,
            sum(file_size) as byte_count,
            sum(row_count) as row_count
        from files
        group by all
    )

    select * from final
  {%- endset -%}
  {%- set totals = {'files': 0, 'bytes': 0, 'rows': 0} -%}
  {%- for row in spark_incremental._fetch_rows(sql) -%}
    {%- set n = partition_columns | length -%}
    {%- if n > 0 -%}
      {%- set values = [] -%}
      {%- for column in partition_columns -%}
        {%- do values.append(column ~ '=' ~ row[loop.index0]) -%}
      {%- endfor -%}
      {%- do result.partitions.append(values | join('/')) -%}
      {%- do result.by_partition.update({values | join('/'): {'values': row[:n] | list, 'files': row[n] | int,
          'bytes': row[n + 1] | int, 'rows': row[n + 2] | int}}) -%}
    {%- endif -%}
    {%- do totals.update({'files': totals.files + row[n] | int, 'bytes': totals.bytes + row[n + 1] | int,
                          'rows': totals.rows + row[n + 2] | int}) -%}
  {%- endfor -%}
  {%- do result.update({'exists': true, 'partitioned': partition_columns | length > 0, 'partitions': result.partitions | sort, 'files': totals.files,
                        'bytes': totals.bytes, 'estimated_rows': totals.rows}) -%}
  {%- do cache.update({key: result}) -%}
  {{- return(result) -}}
{%- endmacro %}

{#- The events table's columns, checked against the column vars in one metadata call:
    {'columns': names in table order, 'types': {lower name: Spark type},
     'partition_format': 'date' | 'string' | 'int' | none}. Every column the package reads
    must exist: event_identifier, session_identifier, user_identifier, session_timestamp,
    the device timestamps (unless null: no late-sent filter), app_id_column when app_ids
    is set, and events_partition_column when set. A missing one stops with a message
    that lists the table's columns of the right type (for the partition column: the
    table's partition columns, and which of them could hold the date); a missing table
    stops too (the describe finds no column). The session and device timestamps, and the
    load timestamp when the table has it (_load_timestamp_column: a name set explicitly
    must exist), must be timestamp or timestamp_ntz columns: another type stops with the
    var, the column, its type and the table's timestamp columns. Offline compiles get placeholders.
    Read (one describe) once per invocation (_run_cache). -#}
{% macro _event_columns(events) -%}
  {%- if not spark_incremental._can_query() or spark_incremental._missing_at_compile(events) -%}
    {{- return({'columns': [spark_incremental.get_config_var('event_identifier')], 'types': {},
                'partition_format': spark_incremental.get_config_var('events_partition_format') or 'date'}) -}}
  {%- endif -%}
  {#- checked once per invocation: every model and hook of the run shares the result -#}
  {%- set cache = spark_incremental._run_cache('event_columns') -%}
  {%- if (events | string) in cache -%}
    {{- return(cache[events | string]) -}}
  {%- endif -%}
  {%- set columns = [] -%}
  {%- set types = {} -%}
  {%- for column in adapter.get_columns_in_relation(events) -%}
    {%- do columns.append(column.name) -%}
    {%- do types.update({column.name | lower: column.dtype | lower}) -%}
  {%- endfor -%}
  {#- dbt-spark's describe returns no column for a missing table (or schema) -#}
  {%- if columns | length == 0 -%}
    {%- do exceptions.raise_compiler_error(
        "spark_incremental: the events table " ~ events.schema ~ "." ~ events.identifier
        ~ " does not exist. Set spark_incremental__events_schema and spark_incremental__events_table"
        ~ " to the table that holds your events, or spark_incremental__events_enabled to false"
        ~ " if the project uses only managed_incremental (no events pipeline).") -%}
  {%- endif -%}
  {%- set kinds = {
      'identifier': ['string', 'varchar', 'char', 'int', 'bigint', 'integer', 'long'],
      'timestamp': ['timestamp', 'timestamp_ntz', 'timestamp_ltz'],
      'text': ['string', 'varchar', 'char'],
      'partition': ['date', 'string', 'varchar', 'char', 'int', 'bigint', 'integer'],
  } -%}
  {%- set wanted = [
      ('event_identifier', 'identifier'), ('session_identifier', 'identifier'),
      ('user_identifier', 'identifier'), ('session_timestamp', 'timestamp'),
      ('device_created_timestamp', 'timestamp'), ('device_sent_timestamp', 'timestamp'),
      ('events_partition_column', 'partition'),
  ] -%}
  {%- if spark_incremental.get_config_var('app_ids') | length > 0 -%}
    {%- do wanted.append(('app_id_column', 'text')) -%}
  {%- endif -%}
  {%- for name, kind in wanted -%}
    {%- set column = spark_incremental.get_config_var(name) -%}
    {%- if column is not none and column | lower not in types -%}
      {%- set prefix = "spark_incremental: spark_incremental__" ~ name ~ " = '" ~ column ~ "' is not a column of "
          ~ events ~ "." -%}
      {%- if kind == 'partition' -%}
        {#- the partition columns themselves (one more describe, only on this error), and the
            ones of a type the package reads as a date -#}
        {%- set partitions = spark_incremental._partition_columns(events) -%}
        {%- set usable = [] -%}
        {%- for other in partitions if types.get(other, '').split('(')[0] in kinds.partition -%}
          {%- do usable.append(other) -%}
        {%- endfor -%}
        {%- set advice = "Set spark_incremental__events_partition_column to null (no partition pruning), or"
            ~ " partition the table by the UTC date of the session timestamp" -%}
        {%- if usable -%}
          {%- set advice = "Set spark_incremental__events_partition_column to the partition column that holds"
              ~ " the UTC date of the session timestamp (of " ~ usable | join(', ') ~ ": the ones of a type the"
              ~ " package reads as a date, " ~ kinds.partition | join('/') ~ "), or to null (no partition pruning)" -%}
        {%- endif -%}
        {%- do exceptions.raise_compiler_error(prefix ~ " Its partition columns: "
            ~ (partitions | join(', ') if partitions else 'none (the table is not partitioned)')
            ~ (", none of a type the package reads as a date (" ~ kinds.partition | join('/') ~ ")"
               if partitions and not usable else '')
            ~ ". " ~ advice ~ ".") -%}
      {%- endif -%}
      {%- set fitting = [] -%}
      {%- for other in columns if types[other | lower].split('(')[0] in kinds[kind] -%}
        {%- do fitting.append(other) -%}
      {%- endfor -%}
      {%- do exceptions.raise_compiler_error(
          prefix ~ " Its " ~ kind ~ " columns (" ~ kinds[kind] | join('/') ~ "): "
          ~ (fitting | join(', ') if fitting else 'none') ~ ". Set spark_incremental__" ~ name
          ~ " to one of them" ~ (" (or to null)" if name in ['device_created_timestamp', 'device_sent_timestamp', 'app_id_column'] else "")
          ~ ".") -%}
    {%- endif -%}
  {%- endfor -%}
  {#- the timestamps must be of a timestamp type: the windows compare them with timestamp
      literals, which fails on text at run time (CAST_INVALID_INPUT) and is wrong for numbers.
      The load timestamp too, when the table has it (a name set explicitly must exist). -#}
  {%- set stamps = [] -%}
  {%- for name in ['session_timestamp', 'device_created_timestamp', 'device_sent_timestamp'] -%}
    {%- do stamps.append((name, spark_incremental.get_config_var(name))) -%}
  {%- endfor -%}
  {%- do stamps.append(('load_timestamp', spark_incremental._load_timestamp_column(columns | map('lower') | list))) -%}
  {%- for name, column in stamps if column is not none -%}
    {%- set column_type = types[column | lower] -%}
    {%- if column_type.split('(')[0] not in kinds.timestamp -%}
      {%- set fitting = [] -%}
      {%- for other in columns if types[other | lower].split('(')[0] in kinds.timestamp -%}
        {%- do fitting.append(other) -%}
      {%- endfor -%}
      {%- do exceptions.raise_compiler_error(
          "spark_incremental: spark_incremental__" ~ name ~ " = '" ~ column ~ "' is a " ~ column_type
          ~ " column of " ~ events ~ "; the package reads it as a UTC timestamp and needs a timestamp column ("
          ~ kinds.timestamp | join('/') ~ "). Its timestamp columns: " ~ (fitting | join(', ') if fitting else 'none')
          ~ ". Set spark_incremental__" ~ name ~ " to one of them"
          ~ (" (or to null)" if name != 'session_timestamp' else "")
          ~ ", or give the table a timestamp column (e.g. to_timestamp(" ~ column ~ ") in the loader).") -%}
    {%- endif -%}
  {%- endfor -%}
  {%- set partition_column = spark_incremental.get_config_var('events_partition_column') -%}
  {%- set partition_format = spark_incremental.get_config_var('events_partition_format') -%}
  {%- if partition_column is not none and partition_format is none -%}
    {%- set partition_type = types[partition_column | lower].split('(')[0] -%}
    {%- set partition_format = {'date': 'date', 'string': 'string', 'varchar': 'string', 'char': 'string',
                                'int': 'int', 'bigint': 'int', 'integer': 'int'}.get(partition_type) -%}
    {%- if partition_format is none -%}
      {%- do exceptions.raise_compiler_error(
          "spark_incremental: spark_incremental__events_partition_column = '" ~ partition_column ~ "' is a "
          ~ partition_type ~ " column; the package reads a date, a 'yyyy-MM-dd' string or an int yyyymmdd."
          ~ " Set spark_incremental__events_partition_format (date, string, int) or name another column.") -%}
    {%- endif -%}
  {%- endif -%}
  {%- set found = {'columns': columns, 'types': types, 'partition_format': partition_format} -%}
  {%- do cache.update({events | string: found}) -%}
  {{- return(found) -}}
{%- endmacro %}

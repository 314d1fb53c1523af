{#- Append rows to the manifest log. rows: list of dicts keyed by column name
    (model and record_type required; missing keys are null). Each call writes one new
    partition of its own, through a dynamic partition overwrite (the log's own table
    option partitionOverwriteMode = dynamic: no session conf is set): every Spark job then
    commits through its own staging folder, so appends from parallel dbt threads cannot
    clobber each other (plain appends to one table share <table>/_temporary), and the
    new partition appears whole or not at all. Existing rows are never touched. The
    rows are stamped (written_at) with the time the insert is built, a microsecond apart
    in the order given, unless a row carries its own written_at (a datetime). -#}
{% macro append_manifest_rows(rows) -%}
  {{- return(adapter.dispatch('append_manifest_rows', 'spark_incremental')(rows)) -}}
{%- endmacro %}


{% macro default__append_manifest_rows(rows) -%}
  {%- if rows | length == 0 -%}
    {{- return(0) -}}
  {%- endif -%}
  {%- set relation = spark_incremental.ensure_manifest_log() -%}
  {%- set sql = spark_incremental._manifest_insert_sql(relation, rows, spark_incremental._manifest_batch_id(rows[0].model)) -%}
  {%- do adapter.execute(sql, fetch=false) -%}
  {#- a row of a model (not the run lock's) changes the state the run lock read -#}
  {%- if rows | rejectattr('model', 'equalto', spark_incremental._lock_model_name()) | list | length > 0 -%}
    {%- do spark_incremental._run_cache('manifest_at_lock').pop('found', none) -%}
  {%- endif -%}
  {#- one more partition, for compact_manifest's count -#}
  {%- set partitions = spark_incremental._run_cache('log_partitions') -%}
  {%- if 'count' in partitions -%}
    {%- do partitions.update({'count': partitions.count + 1}) -%}
  {%- endif -%}
  {{- return(rows | length) -}}
{%- endmacro %}


{#- A partition value no other write uses: the invocation, the time to the microsecond
    and the first row's model. -#}
{% macro _manifest_batch_id(model_name) -%}
  {%- set stamp = modules.datetime.datetime.utcnow().strftime('%Y%m%d%H%M%S%f') -%}
  {{- return(invocation_id ~ '-' ~ stamp ~ '-' ~ modules.re.sub('[^A-Za-z0-9_]', '_', model_name)) -}}
{%- endmacro %}


{% macro _manifest_insert_sql(relation, rows, batch_id) -%}
  {%- set columns = spark_incremental._manifest_columns() -%}
  {%- set written_at = modules.datetime.datetime.utcnow() -%}
  {%- set value_rows = [] -%}
  {%- for row in rows -%}
    {%- if not row.get('model') or row.get('record_type') not in ['events', 'managed', 'remove', 'lock', 'unlock', 'load'] -%}
      {%- do spark_incremental._stop_run(
          "spark_incremental: a manifest row needs a model and a record_type in"
          ~ " ['events', 'managed', 'remove', 'lock', 'unlock', 'load']; got " ~ row) -%}
    {%- endif -%}
    {%- set row_index = loop.index0 -%}
    {%- set values = [] -%}
    {%- for name, type in columns -%}
      {%- if name == 'invocation_id' -%}
        {%- set value = invocation_id -%}
      {%- elif name == 'batch_id' -%}
        {%- set value = batch_id -%}
      {%- elif name == 'written_at' and row.get('written_at') is not none -%}
        {#- a row stamped when its state was reached (a model's state the end hook writes) -#}
        {%- set value = row.written_at.strftime('%Y-%m-%d %H:%M:%S.%f') -%}
      {%- elif name == 'written_at' -%}
        {#- rows of one statement keep their order: a microsecond apart -#}
        {%- set value = (written_at + modules.datetime.timedelta(microseconds=row_index)).strftime('%Y-%m-%d %H:%M:%S.%f') -%}
      {%- else -%}
        {%- set value = row.get(name) -%}
      {%- endif -%}
      {%- if value is not none and type == 'timestamp' and value is not string -%}
        {%- set value = spark_incremental._ts_text(value) -%}
      {%- endif -%}
      {%- do values.append('cast(' ~ spark_incremental._quote(value) ~ ' as ' ~ type ~ ')') -%}
    {%- endfor -%}
    {%- do value_rows.append('(' ~ values | join(', ') ~ ')') -%}
  {%- endfor -%}
insert overwrite table {{ relation }} partition (batch_id)
values
  {{ value_rows | join(',\n  ') }}
{%- endmacro %}

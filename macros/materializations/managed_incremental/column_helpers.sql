{#- Column and relation helpers for managed_incremental. All of them only read. -#}

{#- The model query's columns as [(name, type)], from `describe query` (no data read). -#}
{% macro _managed_query_columns(sql) -%}
  {%- set rows = spark_incremental._fetch_rows('describe query select * from (\n' ~ sql ~ '\n) as si_query') -%}
  {%- set columns = [] -%}
  {%- for row in rows -%}
    {%- do columns.append((row[0], row[1])) -%}
  {%- endfor -%}
  {{- return(columns) -}}
{%- endmacro %}


{#- The query's columns as the last successful run of the same shape found them, for this
    package's own managed models (the session id filter, the lifecycle manifest), so a run
    sends no `describe query` for them. Their columns follow from their SQL template, the
    events table's columns and types and the sessionisation vars (_run_table_shape_md5, the
    run tables' rule), whether the SQL was rendered incrementally, and, when it was, the
    target's own columns (the lifecycle manifest reads itself) as dbt's listing spells
    them. Returns {'key': that md5, or none when it cannot be known without a statement
    (another project's model, a target the listing cannot describe: see
    _managed_listed_describe, which the caller passes none after a recovery or a pre-hook);
    'columns': the columns recorded with the same key (state 'query_columns'), else none:
    the caller describes the query, and records what it found with the key}. -#}
{% macro _managed_known_query_columns(cfg, current, listed) -%}
  {%- if model.package_name != 'spark_incremental' -%}
    {{- return({'key': none, 'columns': none}) -}}
  {%- endif -%}
  {%- set parts = [spark_incremental._run_table_shape_md5(model.raw_code, cfg.file_format),
                   'incremental' if current.plan.is_incremental else 'not incremental'] -%}
  {%- if current.plan.is_incremental -%}
    {%- set target_desc = spark_incremental._managed_listed_describe(listed) if listed is not none else none -%}
    {%- if target_desc is none -%}
      {{- return({'key': none, 'columns': none}) -}}
    {%- endif -%}
    {%- for name, data_type in target_desc.columns -%}
      {%- do parts.append(name ~ ' ' ~ data_type) -%}
    {%- endfor -%}
  {%- endif -%}
  {%- set key = local_md5(parts | join('\n')) -%}
  {%- set recorded = ((current.state.state or {}) if current.state else {}).get('query_columns') or {} -%}
  {%- set columns = none -%}
  {%- if recorded.get('key') == key and recorded.get('columns') -%}
    {%- set columns = [] -%}
    {%- for name, data_type in recorded.columns -%}
      {%- do columns.append((name, data_type)) -%}
    {%- endfor -%}
  {%- endif -%}
  {{- return({'key': key, 'columns': columns}) -}}
{%- endmacro %}


{#- A table's columns in table order as [(name, type)], its partition columns, and whether
    it carries the option partitionOverwriteMode = dynamic (dynamic_overwrite: the
    partition rewrite then sets nothing), in one metadata call. -#}
{% macro _managed_describe(relation) -%}
  {%- set rows = spark_incremental._fetch_rows('describe table extended ' ~ relation) -%}
  {%- set found = {'dynamic_overwrite': false} -%}
  {%- set columns = [] -%}
  {%- set partition_by = [] -%}
  {%- set section = {'name': 'columns'} -%}
  {%- for row in rows -%}
    {%- set name = (row[0] or '') | trim -%}
    {%- if name == '# Partition Information' -%}
      {%- do section.update({'name': 'partitions'}) -%}
    {%- elif name in ['', '# Detailed Table Information'] -%}
      {#- the extended part follows the columns (and the partition columns) -#}
      {%- do section.update({'name': 'other'}) -%}
    {%- elif name.startswith('#') -%}
      {#- a section's column header -#}
    {%- elif section.name == 'columns' -%}
      {%- do columns.append((name, row[1])) -%}
    {%- elif section.name == 'partitions' -%}
      {%- do partition_by.append(name) -%}
    {%- elif name == 'Storage Properties' -%}
      {%- do found.update({'dynamic_overwrite': modules.re.search(
          '(^|[\\[ ,])partitionOverwriteMode=dynamic([\\],]|$)', (row[1] or '') | trim) is not none}) -%}
    {%- endif -%}
  {%- endfor -%}
  {{- return({'columns': columns, 'partition_by': partition_by, 'dynamic_overwrite': found.dynamic_overwrite}) -}}
{%- endmacro %}


{#- The same description as _managed_describe, read from dbt's listing of the schema
    (`show table extended`, run once per invocation) instead of a statement; none when the
    listing cannot stand in for `describe table extended`:
    - no listing text (a table created or renamed in this invocation), or the text of
      another table (its `Table:` line names another);
    - a table format (delta, iceberg, hudi) or a view: their catalog schema is not the
      table's own;
    - a column whose type the listing spells otherwise than Spark SQL and cannot be mapped
      back one to one: nested types (array, map, struct), intervals, anything unknown.
    The listing spells a char/varchar column as string, as the model's query reads it
    (only DDL outside the package makes such a column). The caller uses it only where
    nothing changed the table since the listing in this node (no recovery, no pre-hook):
    a table another invocation changed in between is the relation cache's own limit,
    which dbt has for every relation it lists. -#}
{% macro _managed_listed_describe(relation) -%}
  {%- set re = modules.re -%}
  {%- set text = (relation.information or '') if relation is not none else '' -%}
  {%- set table = re.search('(?m)^Table: (.*)$', text) -%}
  {%- set provider = re.search('(?m)^Provider: (.*)$', text) -%}
  {%- set kind = re.search('(?m)^Type: (.*)$', text) -%}
  {%- if table is none or table.group(1) | lower != relation.identifier | lower
        or provider is none or provider.group(1) | trim | lower in ['delta', 'iceberg', 'hudi']
        or kind is none or kind.group(1) | trim | upper not in ['MANAGED', 'EXTERNAL']
        or '\nSchema: root\n' not in text -%}
    {{- return(none) -}}
  {%- endif -%}
  {#- the listing's type names (StructType.treeString) and Spark SQL's for them -#}
  {%- set sql_types = {'string': 'string', 'long': 'bigint', 'integer': 'int', 'short': 'smallint',
      'byte': 'tinyint', 'float': 'float', 'double': 'double', 'boolean': 'boolean',
      'binary': 'binary', 'date': 'date', 'timestamp': 'timestamp', 'timestamp_ntz': 'timestamp_ntz'} -%}
  {%- set schema_lines = text.split('\nSchema: root\n')[1].split('\n') -%}
  {%- set columns = [] -%}
  {%- for line in schema_lines if line.startswith(' |') -%}
    {%- set found = re.match('^ [|]-- (.*): ([a-z_]+|decimal[(][0-9]+,[0-9]+[)]) [(]nullable = (true|false)[)]$', line) -%}
    {%- set data_type = sql_types.get(found.group(2)) if found and not found.group(2).startswith('decimal') else (found.group(2) if found else none) -%}
    {%- if data_type is none -%}
      {{- return(none) -}}
    {%- endif -%}
    {%- do columns.append((found.group(1), data_type)) -%}
  {%- endfor -%}
  {%- if columns | length == 0 -%}
    {{- return(none) -}}
  {%- endif -%}
  {%- set partition_by = [] -%}
  {%- set partition_line = re.search('(?m)^Partition Columns: \\[(.*)\\]$', text) -%}
  {%- if partition_line -%}
    {%- for quoted in re.findall('`((?:[^`]|``)*)`', partition_line.group(1)) -%}
      {%- do partition_by.append(quoted | replace('``', '`')) -%}
    {%- endfor -%}
  {%- endif -%}
  {%- set storage = re.search('(?m)^Storage Properties: (.*)$', text) -%}
  {{- return({'columns': columns, 'partition_by': partition_by,
              'dynamic_overwrite': storage is not none and re.search(
                  '(^|[\\[ ,])partitionOverwriteMode=dynamic([\\],]|$)', storage.group(1) | trim) is not none}) -}}
{%- endmacro %}


{#- Names of (name, type) columns joined for a select list, with an optional alias. -#}
{% macro _managed_column_list(columns, alias=none) -%}
  {%- set prefix = alias ~ '.' if alias else '' -%}
  {%- set names = [] -%}
  {%- for name, data_type in columns -%}
    {%- do names.append(prefix ~ adapter.quote(name)) -%}
  {%- endfor -%}
  {{- return(names | join(',\n        ')) -}}
{%- endmacro %}



{#- A relation beside the target: same schema, identifier + suffix. -#}
{% macro _managed_sibling(target, suffix) -%}
  {{- return(api.Relation.create(database=target.database, schema=target.schema,
                                 identifier=target.identifier ~ suffix, type='table')) -}}
{%- endmacro %}


{#- Does the relation exist? Uses dbt's relation cache (filled at the start of the run,
    kept current by adapter.rename_relation / drop_relation). -#}
{% macro _managed_exists(relation) -%}
  {{- return(adapter.get_relation(database=relation.database, schema=relation.schema,
                                  identifier=relation.identifier)) -}}
{%- endmacro %}

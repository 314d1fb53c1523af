{#- The change list as given: the var spark_incremental__changes (a list of mappings, or
    YAML text of one), or the YAML file named by spark_incremental__changes_file. -#}
{% macro _raw_changes() -%}
  {%- set listed = spark_incremental.get_config_var('changes') -%}
  {%- set path = spark_incremental.get_config_var('changes_file') -%}
  {%- if listed and path -%}
    {%- do exceptions.raise_compiler_error(
        "spark_incremental: set spark_incremental__changes or spark_incremental__changes_file, not both") -%}
  {%- endif -%}
  {%- if path -%}
    {%- set listed = fromyaml(spark_incremental._read_changes_file(path)) -%}
    {%- if listed is mapping and 'changes' in listed -%}
      {%- set listed = listed['changes'] -%}
    {%- endif -%}
  {%- elif listed is string -%}
    {%- set listed = fromyaml(listed) -%}
  {%- endif -%}
  {%- if listed is none -%}
    {{- return([]) -}}
  {%- endif -%}
  {%- if listed is mapping -%}
    {%- set listed = [listed] -%}
  {%- endif -%}
  {%- if listed is string or listed is not iterable -%}
    {%- do exceptions.raise_compiler_error(
        "spark_incremental: the change list must be a list of {table, type, scope}; got " ~ listed) -%}
  {%- endif -%}
  {{- return(listed | list) -}}
{%- endmacro %}


{#- The file is read by Spark (there is no file access from dbt's Jinja), so the path is
    one the Spark server can read: an absolute local path or a URI (s3a://, hdfs://, ...). -#}
{% macro _read_changes_file(path) -%}
  {%- set path = path | string | trim -%}
  {%- if not (path.startswith('/') or modules.re.match('^[A-Za-z][A-Za-z0-9+.-]*:', path)) or '`' in path -%}
    {%- do exceptions.raise_compiler_error(
        "spark_incremental: spark_incremental__changes_file = '" ~ path ~ "' must be an absolute path"
        ~ " or a URI that the Spark server can read (the file is read by Spark, not by dbt)") -%}
  {%- endif -%}
  {%- set found = spark_incremental._fetch_rows('explain select * from text.`' ~ path ~ '`') -%}
  {%- set text = found | map(attribute=0) | join('\n') -%}
  {%- if 'Error occurred during query planning' in text -%}
    {%- do exceptions.raise_compiler_error(
        "spark_incremental: cannot read spark_incremental__changes_file '" ~ path ~ "': "
        ~ text.replace('Error occurred during query planning:', '') | trim) -%}
  {%- endif -%}
  {%- do adapter.execute("create or replace temporary view spark_incremental__changes_file using text"
      ~ " options (path " ~ spark_incremental._quote(path) ~ ", wholetext 'true')", fetch=false) -%}
  {%- set rows = spark_incremental._fetch_rows('select value from spark_incremental__changes_file') -%}
  {{- return(rows | map(attribute=0) | join('\n')) -}}
{%- endmacro %}

{#- Check a change's scope with Spark's own parser and analyzer, against the changed table,
    without running it: `explain extended select 1 from <table> as <alias> where (<scope>)`.
    The same statement on Spark 3.5 and 4.x (no `execute immediate`, which 3.5 lacks).
    A lexical pass first (outside string literals and quoted identifiers) guarantees the scope
    cannot leave the parentheses of the probe's where clause, so whatever Spark parses is that
    explain: never a second statement, and nothing is executed.
    Errors (the run stops, nothing is written): a ';', a comment, a backslash, unbalanced
    parentheses or quotes, a statement keyword or a reflection function; a scope Spark cannot
    parse (Spark's parse error stops the statement); a column the table does not have; a
    non-boolean expression; a subquery or another table.
    Returns {'columns': [lower-case column names the scope reads]}. -#}
{% macro _check_change_scope(change_label, table, scope) -%}
  {%- set shape_error = spark_incremental._scope_shape_error(scope) -%}
  {%- if shape_error -%}
    {%- do spark_incremental._stop_run(
        "spark_incremental: " ~ change_label ~ ": the scope must be a single boolean expression on the"
        ~ " table's columns, but " ~ shape_error ~ ". Scope: " ~ scope) -%}
  {%- endif -%}
  {%- set probe = 'explain extended select 1 from ' ~ table.relation ~ ' as ' ~ table.alias ~ ' where (' ~ scope ~ ')' -%}
  {%- set rows = spark_incremental._fetch_rows(probe) -%}
  {%- set text = rows | map(attribute=0) | join('\n') -%}
  {%- set analyzed = (text.split('== Analyzed Logical Plan ==')[1] if '== Analyzed Logical Plan ==' in text else text)
      .split('== Optimized Logical Plan ==')[0] -%}
  {%- if 'Error occurred during query planning' in text or 'Exception: ' in analyzed -%}
    {%- set message = spark_incremental._spark_error_line(analyzed) -%}
    {%- if 'UNRESOLVED_COLUMN' in analyzed -%}
      {%- set missing = modules.re.findall('name (`[^ ]+`) cannot be resolved', analyzed) -%}
      {%- do spark_incremental._stop_run(
          "spark_incremental: " ~ change_label ~ ": the scope reads column " ~ (missing | first or '?')
          ~ ", which " ~ table.relation ~ " does not have (columns: "
          ~ spark_incremental._relation_column_names(table.relation) | join(', ') ~ "). Scope: " ~ scope) -%}
    {%- endif -%}
    {%- if 'FILTER_NOT_BOOLEAN' in analyzed -%}
      {%- do spark_incremental._stop_run(
          "spark_incremental: " ~ change_label ~ ": the scope is not a boolean expression: " ~ message) -%}
    {%- endif -%}
    {%- do spark_incremental._stop_run(
        "spark_incremental: " ~ change_label ~ ": Spark rejects the scope: " ~ message ~ ". Scope: " ~ scope) -%}
  {%- endif -%}
  {%- if analyzed.count('Relation ') != 1 or 'Join ' in analyzed or 'Aggregate ' in analyzed -%}
    {%- do spark_incremental._stop_run(
        "spark_incremental: " ~ change_label ~ ": the scope must read only the changed table's own row"
        ~ " (no subquery, no other table). Scope: " ~ scope) -%}
  {%- endif -%}
  {%- if modules.re.search('(?i)\\b(reflect|java_method|try_reflect)\\(', analyzed) -%}
    {%- do spark_incremental._stop_run(
        "spark_incremental: " ~ change_label ~ ": the scope must not call reflect / java_method. Scope: " ~ scope) -%}
  {%- endif -%}
  {%- set filter_lines = [] -%}
  {%- for line in analyzed.split('\n') if 'Filter ' in line -%}
    {%- do filter_lines.append(line) -%}
  {%- endfor -%}
  {%- set columns = [] -%}
  {%- for column in modules.re.findall('([A-Za-z_][A-Za-z0-9_]*)#[0-9]+', filter_lines | join(' ')) -%}
    {%- if column | lower not in columns -%}
      {%- do columns.append(column | lower) -%}
    {%- endif -%}
  {%- endfor -%}
  {{- return({'columns': columns}) -}}
{%- endmacro %}


{#- Why a scope is not one expression, judged outside its string literals and quoted
    identifiers; '' when it is. Balanced parentheses that never close more than they opened
    keep the scope inside the `where (...)` it is put in. -#}
{% macro _scope_shape_error(scope) -%}
  {%- if scope is not string or scope | trim == '' -%}
    {{- return('it is empty or not a string') -}}
  {%- endif -%}
  {#- No backslash at all: without escapes, Spark's plain and raw (r'...') literals end at the
      same quote, so this pass and Spark's lexer agree on where every literal ends. -#}
  {%- if '\\' in scope -%}
    {{- return('it contains a backslash (write literals without escapes)') -}}
  {%- endif -%}
  {%- set outside = modules.re.sub("'[^']*'|\"[^\"]*\"|`[^`]*`", ' __si_literal__ ', scope) -%}
  {%- if "'" in outside or '"' in outside or '`' in outside -%}
    {{- return('it has an unterminated quote') -}}
  {%- endif -%}
  {%- if ';' in outside -%}
    {{- return("it contains ';' (a second statement)") -}}
  {%- endif -%}
  {%- if '--' in outside or '/*' in outside or '*/' in outside -%}
    {{- return('it contains a comment') -}}
  {%- endif -%}
  {%- set depth = namespace(now=0, low=0) -%}
  {%- for char in outside if char in '()' -%}
    {%- set depth.now = depth.now + (1 if char == '(' else -1) -%}
    {%- set depth.low = [depth.low, depth.now] | min -%}
  {%- endfor -%}
  {%- if depth.now != 0 or depth.low < 0 -%}
    {{- return('its parentheses do not balance') -}}
  {%- endif -%}
  {%- if modules.re.search('(?i)\\b(select|union|insert|delete|drop|create|alter|merge)\\b', outside) -%}
    {{- return('it contains a statement keyword (select, union, ...)') -}}
  {%- endif -%}
  {%- if modules.re.search('(?i)\\b(reflect|java_method|try_reflect)\\s*\\(', outside) -%}
    {{- return('it calls a reflection function (reflect, java_method)') -}}
  {%- endif -%}
  {{- return('') -}}
{%- endmacro %}


{#- The first line of a Spark error text that names the error class ('[CLASS] ...'). -#}
{% macro _spark_error_line(text) -%}
  {%- for line in text.split('\n') if line.startswith('[') or 'Exception: [' in line -%}
    {{- return(line[line.index('['):] | trim | truncate(300)) -}}
  {%- endfor -%}
  {{- return(text.replace('Error occurred during query planning:', '') | trim | truncate(300)) -}}
{%- endmacro %}


{#- Lower-case column names of a relation, in table order. -#}
{% macro _relation_column_names(relation) -%}
  {%- set names = [] -%}
  {%- for column in adapter.get_columns_in_relation(relation) -%}
    {%- do names.append(column.name | lower) -%}
  {%- endfor -%}
  {{- return(names) -}}
{%- endmacro %}

{#- Checks on a managed_incremental model's own code (node.raw_code), run with the config
    checks, before any SQL. Stops a model that calls dbt's is_incremental(): in a custom
    materialization dbt's is always false, so its filter never applies and every run
    reads the whole source (and, without unique_key, appends all of it again, silently).

    A call is `is_incremental()` (spaces allowed inside and before the parentheses)
    not qualified as `spark_incremental.is_incremental()`; `dbt.is_incremental()` and any
    other qualifier count as dbt's, a longer name (`my_is_incremental()`) is not a call of
    it. Jinja comments are left out: they render nothing. SQL comments (`--`,
    `/* */`) are not: Jinja in them still runs (a `-- {% if is_incremental() %}` still
    decides what follows), so a mention there is flagged too; reword it.

    Also stops a bare `is_incremental` (any qualifier: `spark_incremental.is_incremental`
    too) in a Jinja condition, right after `if`, `elif`, `and`, `or` or `not`, or assigned
    (`{% set x = is_incremental %}`, `flag=is_incremental`) (in a `{% %}` or `{{ }}` block,
    outside Jinja comments and Jinja strings): a macro object is always true in Jinja, so
    `{% if is_incremental %}` always takes its branch (and `not is_incremental` never
    does). A Jinja test of the name (`is_incremental is defined`) is not a use of its value
    and is not flagged; neither is the name outside Jinja (SQL text). -#}
{% macro _managed_check_raw_code(node=none) -%}
  {%- set node = node if node is not none else model -%}
  {%- set raw = node.raw_code or '' -%}
  {%- set space = '[ \t\r\n]*' -%}
  {%- set comments = [] -%}
  {%- for found in modules.re.finditer('(?s)[{]#.*?#[}]', raw) -%}
    {%- do comments.append([found.start(), found.end()]) -%}
  {%- endfor -%}
  {%- set call = '([A-Za-z0-9_]+' ~ space ~ '[.]' ~ space ~ ')?([A-Za-z0-9_]*)is_incremental'
      ~ space ~ '[(]' ~ space ~ '[)]' -%}
  {%- for found in modules.re.finditer(call, raw) if found.group(2) == '' -%}
    {%- set qualifier = modules.re.sub(space, '', found.group(1) or '') -%}
    {%- set in_comment = [] -%}
    {%- for span in comments if span[0] <= found.start() and found.start() < span[1] -%}
      {%- do in_comment.append(span) -%}
    {%- endfor -%}
    {%- if qualifier != 'spark_incremental.' and in_comment | length == 0 -%}
      {%- do exceptions.raise_compiler_error("spark_incremental: model '" ~ node.name ~ "': `"
          ~ found.group(0) | replace('\n', ' ') ~ "` (line " ~ (raw[:found.start()].count('\n') + 1) ~ ") is dbt's"
          ~ " is_incremental(), which is always false in a custom materialization such as"
          ~ " managed_incremental: its filter would never apply, and every run would read the"
          ~ " whole source (without unique_key: append every row again). Use"
          ~ " spark_incremental.is_incremental() (README, \"Migrating an incremental model\").") -%}
    {%- endif -%}
  {%- endfor -%}
  {#- a bare name in a condition: the macro object, always true -#}
  {%- set bare = '((?<![A-Za-z0-9_.])(if|elif|and|or|not)|(?<![=!<>])=(?!=))' ~ space ~ '([(]' ~ space ~ ')*'
      ~ '([A-Za-z0-9_]+' ~ space ~ '[.]' ~ space ~ ')?is_incremental(?![A-Za-z0-9_])(?!' ~ space ~ '[(])'
      ~ '(?![ \t\r\n]+is(?![A-Za-z0-9_]))' -%}
  {%- for block in modules.re.finditer('(?s)[{]%.*?%[}]|[{][{].*?[}][}]', raw) -%}
    {%- set in_comment = [] -%}
    {%- for span in comments if span[0] <= block.start() and block.start() < span[1] -%}
      {%- do in_comment.append(span) -%}
    {%- endfor -%}
    {%- set code = block.group(0) -%}
    {%- set strings = [] -%}
    {%- for text in modules.re.finditer('\'[^\']*\'|"[^"]*"', code) -%}
      {%- do strings.append([text.start(), text.end()]) -%}
    {%- endfor -%}
    {%- for found in modules.re.finditer(bare, code) if in_comment | length == 0 -%}
      {%- set in_string = [] -%}
      {%- for span in strings if span[0] <= found.start() and found.start() < span[1] -%}
        {%- do in_string.append(span) -%}
      {%- endfor -%}
      {%- if in_string | length == 0 -%}
        {%- do exceptions.raise_compiler_error("spark_incremental: model '" ~ node.name ~ "': `"
            ~ modules.re.sub('[ \t\r\n]+', ' ', found.group(0)) ~ "` (line "
            ~ (raw[:block.start() + found.start()].count('\n') + 1) ~ ") uses is_incremental without calling it:"
            ~ " a macro is always true in Jinja, so the condition does not depend on the table (the"
            ~ " incremental branch is always taken; after `not`, never). Call it:"
            ~ " spark_incremental.is_incremental() (README, \"Migrating an incremental model\").") -%}
      {%- endif -%}
    {%- endfor -%}
  {%- endfor -%}
{%- endmacro %}

{#- The README's vars table, generated from the spec; logged when run as an operation:
    dbt run-operation spark_incremental.config_vars_table -#}
{% macro config_vars_table() -%}
  {%- set lines = ['| var | default | type | meaning |', '| --- | --- | --- | --- |'] -%}
  {%- for entry in spark_incremental._config_var_spec() -%}
    {%- set default = entry.default -%}
    {%- set shown = 'null' if default is none else ('`[]`' if default == [] else '`' ~ spark_incremental._config_value_shown(default, quote_text=entry.type == 'date') ~ '`') -%}
    {%- set kind = {'text_list': 'list of text', 'changes': 'list of changes', 'restate': 'mapping or list',
                    'identifier': 'schema or table name', 'column': 'column name'}.get(entry.type, entry.type) -%}
    {%- if entry.type == 'enum' -%}
      {%- set kind = entry.allowed | map('string') | join(' / ') -%}
    {%- elif entry.type == 'integer' -%}
      {%- set kind = 'integer ≥ ' ~ entry.minimum -%}
    {%- endif -%}
    {%- if entry.get('nullable', false) -%}
      {%- set kind = kind ~ ', or null' -%}
    {%- endif -%}
    {%- set env_name = spark_incremental._config_var_env_name(entry) -%}
    {%- set meaning = entry.meaning ~ ('; when the var is not set, the environment variable `' ~ env_name
        ~ '` gives it (read at execution time: no dbt re-parse)' if env_name else '') -%}
    {%- do lines.append('| `' ~ entry.name ~ '` | ' ~ shown ~ ' | ' ~ kind ~ ' | ' ~ meaning ~ ' |') -%}
  {%- endfor -%}
  {%- set table = lines | join('\n') -%}
  {%- if flags.WHICH == 'run-operation' -%}
    {%- do log('\n' ~ table, info=true) -%}
  {%- endif -%}
  {{- return(table) -}}
{%- endmacro %}

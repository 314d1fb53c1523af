{#- How the package treats a column's Spark type when it is an `along` column or an
    incremental indicator: 'integer' (tinyint, smallint, int, bigint, decimal(p,0)),
    'date', 'timestamp', 'string' (e.g. a ds column 'YYYY-MM-DD'), or none (any other
    type: it cannot carry a high-water mark). -#}
{% macro _along_kind(data_type) -%}
  {%- set t = (data_type or '') | lower | trim -%}
  {%- if t in ['tinyint', 'smallint', 'int', 'integer', 'bigint', 'long', 'short', 'byte'] -%}
    {{- return('integer') -}}
  {%- elif modules.re.match('^decimal\\(\\s*\\d+\\s*,\\s*0\\s*\\)$', t) or t == 'decimal' -%}
    {{- return('integer') -}}
  {%- elif t == 'date' -%}
    {{- return('date') -}}
  {%- elif t in ['timestamp', 'timestamp_ntz', 'timestamp_ltz'] -%}
    {{- return('timestamp') -}}
  {%- elif t == 'string' or t.startswith('varchar') or t.startswith('char') -%}
    {{- return('string') -}}
  {%- endif -%}
  {{- return(none) -}}
{%- endmacro %}


{#- A SQL literal for a value (given as text) of a column of Spark type data_type. -#}
{% macro _along_literal(text, data_type) -%}
  {%- if text is none -%}
    {{- return('null') -}}
  {%- endif -%}
  {%- set kind = spark_incremental._along_kind(data_type) -%}
  {%- if kind is none or kind == 'string' -%}
    {{- return(spark_incremental._quote(text)) -}}
  {%- endif -%}
  {{- return('cast(' ~ spark_incremental._quote(text) ~ ' as ' ~ data_type ~ ')') -}}
{%- endmacro %}


{#- Compare two values of one kind given as text: -1, 0 or 1. -#}
{% macro _along_compare(a, b, kind) -%}
  {%- if kind == 'integer' -%}
    {%- set x = a | string | trim | int -%}
    {%- set y = b | string | trim | int -%}
  {%- elif kind in ['date', 'timestamp'] -%}
    {%- set x = spark_incremental._parse_ts(a | string) -%}
    {%- set y = spark_incremental._parse_ts(b | string) -%}
  {%- else -%}
    {%- set x = a | string -%}
    {%- set y = b | string -%}
  {%- endif -%}
  {{- return(-1 if x < y else (1 if x > y else 0)) -}}
{%- endmacro %}

{#- Check one var's value against its spec entry without raising (so that every bad var
    can be reported at once): {'value': the coerced value, 'problem': none, or what the
    value must be}; for restate also 'detail': which part is wrong, the field and its
    value (start '2021-13-40' is not a date or timestamp ...). Vars often arrive as text
    from env_var: booleans take 'true' / 'false' in any case, integers take digit text,
    and a nullable var takes '' (or 'null', 'none') as null. Dates and timestamps are checked and returned as given. -#}
{% macro _check_config_var(entry, value) -%}
  {%- set kind = entry.type -%}
  {%- set nullable = entry.get('nullable', false) -%}
  {%- set identifier_pattern = '^[A-Za-z_][A-Za-z0-9_]*$' -%}
  {%- set ok = {'value': value, 'problem': none} -%}
  {%- if nullable and (value is none or (value is string and value | trim | lower in ['', 'null', 'none'])) -%}
    {{- return({'value': none, 'problem': none}) -}}
  {%- endif -%}
  {%- if kind == 'boolean' -%}
    {%- if value is sameas true or value is sameas false -%}
      {{- return(ok) -}}
    {%- elif value is string and value | trim | lower in ['true', 'false'] -%}
      {{- return({'value': value | trim | lower == 'true', 'problem': none}) -}}
    {%- endif -%}
    {{- return({'value': none, 'problem': "true or false (or the text 'true' / 'false', any case)"}) -}}
  {%- elif kind == 'integer' -%}
    {%- set problem = 'a whole number >= ' ~ entry.minimum ~ ' (an integer, or its digits as text)' -%}
    {%- set number = none -%}
    {%- if value is integer -%}
      {%- set number = value -%}
    {%- elif value is string and modules.re.match('^\\s*-?[0-9]+\\s*$', value) -%}
      {%- set number = value | trim | int -%}
    {%- endif -%}
    {%- if number is none or number < entry.minimum -%}
      {{- return({'value': none, 'problem': problem}) -}}
    {%- endif -%}
    {{- return({'value': number, 'problem': none}) -}}
  {%- elif kind in ['date', 'timestamp'] -%}
    {%- set problem = "a date 'YYYY-MM-DD' or a timestamp 'YYYY-MM-DD HH:MM:SS' (UTC)" -%}
    {%- if value is string -%}
      {%- for fmt in ['%Y-%m-%d %H:%M:%S.%f', '%Y-%m-%d %H:%M:%S', '%Y-%m-%dT%H:%M:%S', '%Y-%m-%d %H:%M', '%Y-%m-%d']
            if spark_incremental._try_strptime(value | trim, fmt) is not none -%}
        {{- return(ok) -}}
      {%- endfor -%}
    {%- elif value is not none and value.year is defined -%}
      {#- YAML reads an unquoted 2021-01-01 as a date -#}
      {{- return(ok) -}}
    {%- endif -%}
    {{- return({'value': none, 'problem': problem}) -}}
  {%- elif kind in ['identifier', 'column'] -%}
    {%- if value is string and modules.re.match(identifier_pattern, value) -%}
      {{- return(ok) -}}
    {%- endif -%}
    {{- return({'value': none, 'problem': 'a ' ~ ('column' if kind == 'column' else 'schema or table')
        ~ ' name matching ' ~ identifier_pattern}) -}}
  {%- elif kind == 'enum' -%}
    {%- if value is string and value | trim | lower in entry.allowed -%}
      {{- return({'value': value | trim | lower, 'problem': none}) -}}
    {%- endif -%}
    {{- return({'value': none, 'problem': 'one of: ' ~ entry.allowed | join(', ')}) -}}
  {%- elif kind == 'text' -%}
    {%- if value is string -%}
      {{- return(ok) -}}
    {%- endif -%}
    {{- return({'value': none, 'problem': 'text (a file path)'}) -}}
  {%- elif kind == 'text_list' -%}
    {%- set problem = "a list of text values (a single text is a list of one; YAML text of a list, '[a, b]', or names separated by commas, 'a,b', is that list; [] = none)" -%}
    {%- if value is string and value | trim == '' -%}
      {%- set value = none -%}
    {%- elif value is string and ',' in value and value | trim | first != '[' -%}
      {#- names separated by commas, as an orchestrator's environment passes them -#}
      {%- set value = value.split(',') | map('trim') | list -%}
      {%- if '' in value -%}
        {{- return({'value': none, 'problem': problem ~ '; an empty name between commas'}) -}}
      {%- endif -%}
    {%- elif value is string and value | trim | first == '[' -%}
      {#- a list passed as text (env_var): YAML, '[a, b]' or '["a", "b"]' -#}
      {%- set value = fromyaml(value) -%}
      {%- if value is none or value is string or value is mapping or value is not iterable -%}
        {{- return({'value': none, 'problem': problem}) -}}
      {%- endif -%}
    {%- endif -%}
    {%- if value is none -%}
      {{- return({'value': [], 'problem': none}) -}}
    {%- elif value is string -%}
      {{- return({'value': [value], 'problem': none}) -}}
    {%- elif value is mapping or value is not iterable -%}
      {{- return({'value': none, 'problem': problem}) -}}
    {%- endif -%}
    {%- for item in value if item is not string -%}
      {{- return({'value': none, 'problem': problem}) -}}
    {%- endfor -%}
    {%- for item in value if item | trim == '' -%}
      {{- return({'value': none, 'problem': problem ~ '; an empty name'}) -}}
    {%- endfor -%}
    {{- return({'value': value | list, 'problem': none}) -}}
  {%- elif kind == 'changes' -%}
    {%- set parsed = fromyaml(value) if value is string else value -%}
    {%- if parsed is none and not (value is string and value | trim != '') -%}
      {{- return({'value': [], 'problem': none}) -}}
    {%- elif parsed is mapping or (parsed is iterable and parsed is not string) -%}
      {{- return({'value': parsed, 'problem': none}) -}}
    {%- endif -%}
    {{- return({'value': none, 'problem': 'a list of {table, type, scope} (or YAML text of one)'}) -}}
  {%- elif kind == 'restate' -%}
    {%- set problem = "{model: name (or a list of names), start: 'YYYY-MM-DD', end: 'YYYY-MM-DD' (optional)}, or {start, end} without a model for the event pipeline, or a list of those (or YAML text of one)" -%}
    {%- set parsed = fromyaml(value) if value is string else value -%}
    {%- set entries = [parsed] if parsed is mapping else parsed -%}
    {%- if entries is string or entries is not iterable -%}
      {{- return({'value': none, 'problem': problem}) -}}
    {%- endif -%}
    {%- set stamp = {'type': 'timestamp'} -%}
    {%- set forms = "use a date 'YYYY-MM-DD' or a timestamp 'YYYY-MM-DD HH:MM:SS' (UTC)" -%}
    {%- for item in entries -%}
      {%- set where = 'entry ' ~ loop.index ~ ': ' if parsed is not mapping else '' -%}
      {%- set detail = none -%}
      {%- if item is not mapping -%}
        {%- set detail = where ~ spark_incremental._config_value_shown(item, quote_text=true) ~ ' ('
            ~ spark_incremental._config_value_type(item) ~ ') is not a mapping' -%}
      {%- elif not item.get('start') -%}
        {%- set detail = where ~ 'start is missing' -%}
      {%- elif item.get('model') and item.model is not string
            and (item.model is mapping or item.model is not iterable) -%}
        {%- set detail = where ~ 'model ' ~ spark_incremental._config_value_shown(item.model) ~ ' ('
            ~ spark_incremental._config_value_type(item.model) ~ ') is not a model name or a list of names' -%}
      {%- else -%}
        {%- set bad = [] -%}
        {%- for field in ['start', 'end'] if item.get(field)
              and spark_incremental._check_config_var(stamp, item[field]).problem is not none -%}
          {%- do bad.append(field) -%}
        {%- endfor -%}
        {%- if bad | length > 0 -%}
          {%- set detail = where ~ bad[0] ~ ' ' ~ spark_incremental._config_value_shown(item[bad[0]], quote_text=true)
              ~ ' is not a date or timestamp: ' ~ forms -%}
        {%- endif -%}
        {%- if detail is none and item.get('end')
              and spark_incremental._parse_ts(item.end) <= spark_incremental._parse_ts(item.start) -%}
          {%- set detail = where ~ 'end ' ~ spark_incremental._config_value_shown(item.end, quote_text=true)
              ~ ' is not after start ' ~ spark_incremental._config_value_shown(item.start, quote_text=true)
              ~ " (a model's intervals are restated in [start, end), the events in [start, end])" -%}
        {%- endif -%}
      {%- endif -%}
      {%- if detail is not none -%}
        {{- return({'value': none, 'problem': problem, 'detail': detail}) -}}
      {%- endif -%}
    {%- endfor -%}
    {{- return({'value': parsed, 'problem': none}) -}}
  {%- endif -%}
  {%- do exceptions.raise_compiler_error("spark_incremental: the spec of spark_incremental__" ~ entry.name
      ~ " has an unknown type '" ~ kind ~ "'") -%}
{%- endmacro %}

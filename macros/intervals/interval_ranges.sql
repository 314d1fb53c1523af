{#- Time ranges are [start, end) pairs of datetimes. Done intervals are stored as merged
    ranges, so a year of daily intervals without gaps is one pair. -#}
{% macro _ranges_merge(ranges) -%}
  {%- set merged = [] -%}
  {%- for pair in ranges | sort(attribute='0') if pair[0] < pair[1] -%}
    {%- if merged | length > 0 and pair[0] <= merged[-1][1] -%}
      {%- set last = merged.pop() -%}
      {%- do merged.append([last[0], [last[1], pair[1]] | max]) -%}
    {%- else -%}
      {%- do merged.append([pair[0], pair[1]]) -%}
    {%- endif -%}
  {%- endfor -%}
  {{- return(merged) -}}
{%- endmacro %}


{#- Parts of `whole` ([start, end)) not covered by the merged ranges `done`. -#}
{% macro _ranges_subtract(whole, done) -%}
  {%- set missing = [] -%}
  {%- set cursor = namespace(at=whole[0]) -%}
  {%- for pair in spark_incremental._ranges_merge(done) if pair[1] > cursor.at and pair[0] < whole[1] -%}
    {%- if pair[0] > cursor.at -%}
      {%- do missing.append([cursor.at, pair[0]]) -%}
    {%- endif -%}
    {%- set cursor.at = [cursor.at, pair[1]] | max -%}
  {%- endfor -%}
  {%- if cursor.at < whole[1] -%}
    {%- do missing.append([cursor.at, whole[1]]) -%}
  {%- endif -%}
  {{- return(missing) -}}
{%- endmacro %}


{#- '[start, end)': a time range in words, as every log line, run detail and plan preview
    writes it. -#}
{% macro _range_text(pair) -%}
  {{- return('[' ~ spark_incremental._ts_text(pair[0]) ~ ', ' ~ spark_incremental._ts_text(pair[1]) ~ ')') -}}
{%- endmacro %}


{#- Ranges as text pairs for the manifest's state JSON, and back. -#}
{% macro _ranges_to_text(ranges) -%}
  {%- set out = [] -%}
  {%- for pair in ranges -%}
    {%- do out.append([spark_incremental._ts_text(pair[0]), spark_incremental._ts_text(pair[1])]) -%}
  {%- endfor -%}
  {{- return(out) -}}
{%- endmacro %}


{% macro _ranges_from_text(pairs) -%}
  {%- set out = [] -%}
  {%- for pair in pairs or [] -%}
    {%- do out.append([spark_incremental._parse_ts(pair[0]), spark_incremental._parse_ts(pair[1])]) -%}
  {%- endfor -%}
  {{- return(out) -}}
{%- endmacro %}

{#- The plan as a table: one row per model and input, then the total. -#}
{% macro _plan_print(entries, total) -%}
  {%- set header = ['model', 'next run', 'reads', 'partitions', 'files', 'size', 'est. rows', 'full refresh reads'] -%}
  {%- set table = [header] -%}
  {%- for entry in entries -%}
    {%- set lead = [entry.model, entry.detail if entry.kind != 'base' else entry.action ~ ': ' ~ entry.detail] -%}
    {%- if entry.inputs | length == 0 -%}
      {%- do table.append(lead + ['-', '', '', '', '', '']) -%}
    {%- endif -%}
    {%- for input in entry.inputs -%}
      {%- set parts = input.partitions -%}
      {%- do table.append((lead if loop.first else ['', '']) + [
          input.relation,
          '-' if input.files is none else ('unpartitioned' if not input.partitioned
              else parts | length ~ (' (' ~ parts[0] ~ (' .. ' ~ parts[-1] if parts | length > 1 else '') ~ ')' if parts else '')),
          '-' if input.files is none else input.files, spark_incremental._plan_size_text(input.bytes),
          '-' if input.estimated_rows is none else input.estimated_rows,
          input.full_refresh.files ~ ' files, ' ~ spark_incremental._plan_size_text(input.full_refresh.bytes)
              ~ ', ' ~ input.full_refresh.estimated_rows ~ ' rows' if input.full_refresh.files is not none
              else input.note]) -%}
    {%- endfor -%}
  {%- endfor -%}
  {%- do table.append(['total', '', '', '', total.files, spark_incremental._plan_size_text(total.bytes), total.estimated_rows,
      total.full_refresh.files ~ ' files, ' ~ spark_incremental._plan_size_text(total.full_refresh.bytes)
          ~ ', ' ~ total.full_refresh.estimated_rows ~ ' rows']) -%}
  {%- do spark_incremental._log_table(table, total_row=true) -%}
{%- endmacro %}


{#- 1536 -> '1.5 KiB' (binary units, one decimal, as Spark's UI shows sizes). -#}
{% macro _plan_size_text(bytes) -%}
  {%- if bytes is none -%}
    {{- return('-') -}}
  {%- endif -%}
  {%- set state = namespace(value=bytes * 1.0, unit='B') -%}
  {%- for unit in ['KiB', 'MiB', 'GiB', 'TiB'] if state.value >= 1024 -%}
    {%- set state.value = state.value / 1024 -%}
    {%- set state.unit = unit -%}
  {%- endfor -%}
  {{- return(bytes ~ ' B' if state.unit == 'B' else '%.1f %s' | format(state.value, state.unit)) -}}
{%- endmacro %}

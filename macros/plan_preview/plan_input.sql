{#- One input of a model: what the planned run reads (none: nothing, the model skips) and
    what a full refresh reads, from two _plan_scan results. -#}
{% macro _plan_input(planned, full) -%}
  {%- set input = {
      'relation': full.relation,
      'partitioned': full.get('partitioned', false),
      'partitions': planned.partitions if planned else [],
      'files': planned.files if planned else 0,
      'bytes': planned.bytes if planned else 0,
      'estimated_rows': planned.estimated_rows if planned else 0,
      'full_refresh': {'partitions': full.partitions | length, 'files': full.files, 'bytes': full.bytes,
                       'estimated_rows': full.estimated_rows},
  } -%}
  {%- if not full.exists -%}
    {%- do input.update({'note': 'not a table yet (or a view): nothing to list'}) -%}
  {%- endif -%}
  {{- return(input) -}}
{%- endmacro %}


{#- Files, bytes and estimated rows summed over every input of every model, planned and
    full refresh (an input read by two models counts twice: it is scanned twice). -#}
{% macro _plan_total(entries) -%}
  {%- set total = {'files': 0, 'bytes': 0, 'estimated_rows': 0,
                   'full_refresh': {'files': 0, 'bytes': 0, 'estimated_rows': 0}} -%}
  {%- for entry in entries -%}
    {%- for input in entry.inputs -%}
      {%- for key in ['files', 'bytes', 'estimated_rows'] -%}
        {%- do total.update({key: total[key] + (input[key] or 0)}) -%}
        {%- do total.full_refresh.update({key: total.full_refresh[key] + (input.full_refresh[key] or 0)}) -%}
      {%- endfor -%}
    {%- endfor -%}
  {%- endfor -%}
  {{- return(total) -}}
{%- endmacro %}

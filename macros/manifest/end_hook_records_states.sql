{#- Does the project's on-run-end hook call update_manifest (the README's quick start)?
    Then a managed_incremental model's state after its write is kept for that hook, which
    appends it with the run's other rows (_managed_write_state, at_end). Without the hook
    every state row is appended when it is reached. Read once per invocation from the
    graph's hook nodes. -#}
{% macro _end_hook_records_states() -%}
  {%- set known = spark_incremental._run_cache('end_hook') -%}
  {%- if 'records_states' not in known -%}
    {%- set found = [] -%}
    {%- if execute -%}
      {%- for node in graph.nodes.values()
            if node.resource_type == 'operation' and '-on-run-end-' in node.name
            and 'update_manifest(' in (node.raw_code or '') -%}
        {%- do found.append(node.name) -%}
      {%- endfor -%}
    {%- endif -%}
    {%- do known.update({'records_states': found | length > 0}) -%}
  {%- endif -%}
  {{- return(known.records_states) -}}
{%- endmacro %}

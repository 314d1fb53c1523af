{#- named_struct('p1', <qualifier>.<first partition column>, ...): one partition's values
    as a struct (qualifier none: unqualified). -#}
{% macro _partition_struct(partitions, qualifier) -%}
  named_struct(
  {%- for p in partitions -%}
    'p{{ loop.index }}', {{ (qualifier ~ '.' if qualifier else '') ~ p }}{{ ', ' if not loop.last }}
  {%- endfor -%}
  )
{%- endmacro %}

{#- The side tables a managed model's writes put beside its target, by role: the one list
    that the writers, recovery (_managed_recover) and the plan preview's leftovers read.

    old     <name>__si_old     a rebuild's target, renamed away before the swap
    new     <name>__si_new     a rebuild's complete new table, renamed in by the swap
    apply   <name>__si_apply   an upsert's full new content of the affected partitions
    stage   <name>__si_stage   an upsert's new rows, computed once -#}
{% macro _managed_side_tables(target) -%}
  {%- set tables = {} -%}
  {%- for role in ['old', 'new', 'apply', 'stage'] -%}
    {%- do tables.update({role: spark_incremental._managed_sibling(target, '__si_' ~ role)}) -%}
  {%- endfor -%}
  {{- return(tables) -}}
{%- endmacro %}

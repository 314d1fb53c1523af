{#- The write layer's one build-and-swap: `new` (a complete table beside the target,
    <name>__si_new) takes the place of `existing` (the target, or none). The target is
    renamed to <name>__si_old, `new` to the target, then the old table is dropped. Used
    by rebuilds and by forward-only migrations; a kill at any step leaves a state that
    _managed_recover finishes or undoes at the start of the next run:
      __si_new only              dropped (the target was never touched);
      __si_old + __si_new        __si_new renamed in (a CTAS table is registered complete);
      __si_old + the target      __si_old dropped. -#}
{% macro _swap_in(target, new, existing) -%}
  {%- set old = spark_incremental._managed_side_tables(target).old -%}
  {%- do spark_incremental._managed_fault('before_swap') -%}
  {%- if existing is not none -%}
    {%- do adapter.rename_relation(existing, old) -%}
    {%- do spark_incremental._managed_fault('after_rename_old') -%}
  {%- endif -%}
  {%- do adapter.rename_relation(new, target) -%}
  {%- if existing is not none -%}
    {%- do adapter.drop_relation(old.incorporate(type=existing.type)) -%}
  {%- endif -%}
{%- endmacro %}

{#- Finish or undo what an interrupted run of this model left behind, before anything
    else happens. Returns the log messages (one per repair).

    <name>__si_old and no target   a rebuild stopped between its two renames: rename
                                   <name>__si_new in when it is there (it is complete: Spark
                                   registers a CTAS table only after its data is written),
                                   else rename <name>__si_old back;
    <name>__si_old and a target    the swap finished: drop the old table;
    <name>__si_new and a target    a rebuild stopped before its swap: drop it;
    <name>__si_apply               an overwrite may have stopped half-way: re-apply it
                                   (it holds the full new content of the affected
                                   partitions), then drop it;
    <name>__si_stage               drop it (the stage is only read to build the apply
                                   table, which recovery handles). -#}
{% macro _managed_recover(target) -%}
  {%- set messages = [] -%}
  {%- set side = spark_incremental._managed_side_tables(target) -%}
  {%- set old, new, apply, stage = side.old, side.new, side.apply, side.stage -%}
  {%- set found_target = spark_incremental._managed_exists(target) -%}
  {%- set found_old = spark_incremental._managed_exists(old) -%}
  {%- set found_new = spark_incremental._managed_exists(new) -%}

  {%- if found_old is not none and found_target is none -%}
    {%- if found_new is not none -%}
      {%- do adapter.rename_relation(found_new, target) -%}
      {%- do adapter.drop_relation(found_old) -%}
      {%- do messages.append('recovered: an earlier rebuild stopped half-way through its swap; finished it ('
          ~ new.identifier ~ ' renamed to ' ~ target.identifier ~ ', ' ~ old.identifier ~ ' dropped)') -%}
    {%- else -%}
      {%- do adapter.rename_relation(found_old, target) -%}
      {%- do messages.append('recovered: ' ~ target.identifier ~ ' was missing; restored it from ' ~ old.identifier
          ~ ' (an earlier rebuild stopped after renaming it away)') -%}
    {%- endif -%}
  {%- elif found_old is not none -%}
    {%- do adapter.drop_relation(found_old) -%}
    {%- do messages.append('recovered: dropped ' ~ old.identifier ~ ' left by a rebuild that stopped after its swap') -%}
  {%- elif found_new is not none -%}
    {%- do adapter.drop_relation(found_new) -%}
    {%- do messages.append('recovered: dropped ' ~ new.identifier ~ ' left by a rebuild that stopped before its swap'
        ~ ' (' ~ target.identifier ~ ' was never touched)') -%}
  {%- endif -%}

  {%- set found_apply = spark_incremental._managed_exists(apply) -%}
  {%- if found_apply is not none -%}
    {%- if spark_incremental._managed_apply_is_for(apply, target) and spark_incremental._managed_exists(target) is not none -%}
      {%- set target_desc = spark_incremental._managed_describe(target) -%}
      {%- set applied = spark_incremental._managed_apply_overwrite(target, apply, target_desc) -%}
      {%- do messages.append('recovered: re-applied the interrupted overwrite of '
          ~ (applied.partitions ~ ' partitions' if applied.partitions is not none else 'the whole table')
          ~ ' from ' ~ apply.identifier) -%}
    {%- else -%}
      {%- do messages.append('recovered: dropped ' ~ apply.identifier ~ ', which was not complete') -%}
    {%- endif -%}
    {%- do adapter.drop_relation(found_apply) -%}
  {%- endif -%}
  {%- if spark_incremental._managed_exists(stage) is not none -%}
    {%- do adapter.drop_relation(stage) -%}
    {%- do messages.append('recovered: dropped ' ~ stage.identifier ~ ', the staged rows of an interrupted run'
        ~ ' (' ~ target.identifier ~ ' was not written from it; this run stages its rows again)') -%}
  {%- endif -%}
  {{- return(messages) -}}
{%- endmacro %}

{#- managed_incremental: the model declares how its source mutates; each run builds the
    cheapest correct update and records its state in the manifest log.

      validate (config and raw code, no SQL) -> the run's plan (_managed_run_plan:
         recover leftovers of an interrupted run, read state, plan; computed once, when
         dbt rendered the model's SQL or now) -> describe the query (reads nothing; not when the plan is to skip:
         a skipped model writes nothing, so it needs no columns; not for the package's own
         models when their last run of the same shape recorded the columns) -> pre-hooks
      -> rebuild bookkeeping -> write -> record state (written by the end hook) -> one log line -> post-hooks

    See docs/managed_incremental.md for the user-facing contract. -#}
{% materialization managed_incremental, adapter='spark', supported_languages=['sql'] %}
  {%- set cfg = spark_incremental._managed_config() -%}
  {%- do spark_incremental._managed_check_raw_code() -%}
  {%- set target = this.incorporate(type='table') -%}

  {#- the one plan (run_plan.sql): recovery, state, flags and plan, as the SQL was rendered
      (already computed when the model's SQL asked for it, e.g. is_incremental()) -#}
  {%- set current = spark_incremental._managed_run_plan() -%}
  {%- set sql = compiled_code -%}
  {#- the target as dbt listed it, when nothing in this node changed it since (no recovery,
      no pre-hook): its description, and the package's own models' query columns, from
      the listing (one statement fewer each) -#}
  {%- set listed = spark_incremental._managed_exists(target)
      if current.recovered | length == 0 and pre_hooks | length == 0 else none -%}
  {%- set query_columns = none -%}
  {%- set known = {'key': none, 'columns': none} -%}
  {%- if current.plan.action != 'skip' -%}
    {%- set known = spark_incremental._managed_known_query_columns(cfg, current, listed) -%}
    {%- set query_columns = known.columns if known.columns is not none
        else spark_incremental._managed_query_columns(sql) -%}
    {#- an enforced contract: checked, and the columns in its order (contract.sql) -#}
    {%- set contracted = spark_incremental._managed_apply_contract(sql, query_columns) -%}
    {%- set sql = contracted.sql -%}
    {%- set query_columns = contracted.columns -%}
    {%- if cfg.intervals -%}
      {%- do spark_incremental._interval_check_columns(cfg.model, cfg.intervals, query_columns) -%}
    {%- endif -%}
    {%- set partitioning = spark_incremental._partitioning_for_model(cfg, target, sql, query_columns, should_full_refresh()) -%}
    {%- if partitioning is not none -%}
      {%- set sql = spark_incremental._partitioned_sql(sql, partitioning, query_columns | map(attribute=0) | map('lower') | list) -%}
      {%- set query_columns = spark_incremental._managed_query_columns(sql) -%}
      {%- do cfg.update({'partition_by': partitioning.partition_by}) -%}
      {%- do known.update({'key': none}) -%}
    {%- endif -%}
    {%- set cfg = spark_incremental._managed_validate_columns(cfg, query_columns) -%}
  {%- endif -%}

  {{ run_hooks(pre_hooks) }}
  {%- do spark_incremental._keep_run_lock() -%}

  {%- for message in current.recovered -%}
    {%- do spark_incremental._log(cfg.model ~ ': ' ~ message) -%}
  {%- endfor -%}
  {%- set existing = current.existing -%}
  {%- set state = current.state -%}
  {%- set now = current.now -%}
  {%- set flags = current.flags -%}
  {%- set plan = current.plan -%}
  {%- if query_columns is not none -%}
    {%- set plan = spark_incremental._managed_plan_for_query(plan, current.cfg, cfg) -%}
  {%- endif -%}
  {%- set plan = spark_incremental._managed_rebuild(cfg, state, plan, flags) -%}
  {%- for note in [plan.kept] if note -%}
    {%- do spark_incremental._log(cfg.model ~ ': ' ~ note) -%}
  {%- endfor -%}

  {%- set target_desc = none -%}
  {%- if plan.is_incremental or plan.action == 'apply_changes' -%}
    {%- set target_desc = spark_incremental._managed_check_target(cfg, state, target, query_columns, listed) -%}
  {%- endif -%}

  {%- if target_desc is not none -%}
    {#- target columns the query lacks (on_schema_change ignore, append_new_columns) are null -#}
    {%- set sql = spark_incremental._on_schema_change_fit_sql(sql, target_desc.columns, query_columns) -%}
  {%- endif -%}
  {%- set result = spark_incremental._managed_execute(plan, cfg, target, existing, sql, target_desc) -%}
  {%- set message = spark_incremental._managed_message(plan, cfg, state, result) -%}

  {%- if plan.action != 'skip' -%}
    {%- set high_water_mark = spark_incremental._managed_new_high_water_mark(plan, cfg, state, result) -%}
    {%- set recorded = {
        'fingerprint': cfg.fingerprint,
        'update_cron': cfg.update_cron,
        'grace_period': cfg.grace.text if cfg.grace else none,
        'rows_written': result.rows,
        'partitions_replaced': result.partitions,
        'plan_action': plan.action,
        'slice': spark_incremental._managed_written_slice(plan, cfg),
        'intervals': result.intervals if 'intervals' in result else ((state.state or {}).get('intervals') if state else none),
    } -%}
    {%- if known.key and query_columns -%}
      {%- do recorded.update({'query_columns': {'key': known.key, 'columns': query_columns}}) -%}
    {%- endif -%}
    {%- do spark_incremental._managed_write_state(
        cfg.model,
        cfg.mutability_type,
        now,
        high_water_mark,
        cfg.along_type if cfg.along else none,
        recorded,
        message,
        at_end=true) -%}
  {%- endif -%}
  {%- for relation in result.get('cleanup', []) -%}
    {%- do adapter.drop_relation(relation) -%}
  {%- endfor -%}
  {%- do spark_incremental._log(cfg.model ~ ': ' ~ message) -%}

  {#- dbt's result for the node, without a round trip: the writes above were the work -#}
  {%- call noop_statement('main', plan.action) -%}{%- endcall -%}

  {{ run_hooks(post_hooks) }}

  {%- if plan.action != 'skip' -%}
    {%- do persist_docs(target, model) -%}
    {%- do apply_grants(target, config.get('grants'), should_revoke(existing, full_refresh_mode=(plan.action == 'build'))) -%}
  {%- endif -%}

  {{ return({'relations': [target]}) }}
{% endmaterialization %}


{#- Before an incremental write: the target's columns are brought in line with the
    query's as on_schema_change / forward_only say (_on_schema_change_apply, or the run
    stops), and the along column must keep its type. Returns the target's description:
    from dbt's listing of `listed` (the target's cached relation) when it can stand in
    (_managed_listed_describe), else from a statement. -#}
{% macro _managed_check_target(cfg, state, target, query_columns, listed=none) -%}
  {%- set target_desc = spark_incremental._managed_listed_describe(listed) if listed is not none else none -%}
  {%- if target_desc is none -%}
    {%- set target_desc = spark_incremental._managed_describe(target) -%}
  {%- endif -%}
  {%- set changed = spark_incremental._on_schema_change_apply(cfg, target, target_desc.columns, query_columns) -%}
  {%- if changed -%}
    {%- do spark_incremental._log(cfg.model ~ ': ' ~ changed) -%}
    {%- set target_desc = spark_incremental._managed_describe(target) -%}
  {%- endif -%}
  {%- if cfg.along and state and state.high_water_mark_type and state.high_water_mark_type != cfg.along_type -%}
    {%- do exceptions.raise_compiler_error("spark_incremental: model '" ~ cfg.model ~ "': " ~ cfg.along_key ~ " '"
        ~ cfg.along ~ "' changed type from " ~ state.high_water_mark_type ~ " to " ~ cfg.along_type
        ~ ". Run it once with --full-refresh to rebuild it. " ~ spark_incremental._rebuild_cost_text(cfg.model)) -%}
  {%- endif -%}
  {{- return(target_desc) -}}
{%- endmacro %}


{#- Does the target hold rows past the recorded high-water mark (written by a run that
    died before recording its state)? Cheap: one row, pruned when partitioned by along.
    Part of the plan (_managed_run_plan), so the literal is typed by the recorded type. -#}
{% macro _managed_unrecorded_rows(cfg, state, target) -%}
  {%- set sql -%}
    select 1 from {{ target }}
    {%- if state.high_water_mark is not none %}
    where {{ cfg.along }} > {{ spark_incremental._along_literal(state.high_water_mark, state.high_water_mark_type) }}
    {%- endif %}
    limit 1
  {%- endset -%}
  {{- return(spark_incremental._fetch_rows(sql) | length > 0) -}}
{%- endmacro %}


{#- The high-water mark after this run: a build resets it to the largest loaded value;
    incremental runs never move it backwards. -#}
{% macro _managed_new_high_water_mark(plan, cfg, state, result) -%}
  {%- if not cfg.along -%}
    {{- return(none) -}}
  {%- endif -%}
  {%- if plan.action == 'apply_changes' -%}
    {#- a described change never moves the mark: ADD_ROWS for a later date must not jump
        over the rows in between (the next run finds the rows past the mark and replaces
        that range, see _managed_unrecorded_rows) -#}
    {{- return(state.high_water_mark if state else none) -}}
  {%- endif -%}
  {%- set old = state.high_water_mark if state and plan.action != 'build' else none -%}
  {%- set new = result.max -%}
  {%- if old is none -%}
    {{- return(new) -}}
  {%- elif new is none -%}
    {{- return(old) -}}
  {%- endif -%}
  {{- return(new if spark_incremental._along_compare(new, old, cfg.along_kind) > 0 else old) -}}
{%- endmacro %}


{#- The one line that says what the run did and why, e.g. 'built once (10 rows)',
    'skipped: immutable', "appended 3 rows with ds > '2020-01-01'",
    'appended 3 rows (no unique_key: plain append, as dbt incremental)',
    'upserted 7 rows on booking_id: replaced 3 partitions',
    "wrote 5 rows: replaced 2 partitions (incremental_strategy 'insert_overwrite')". -#}
{% macro _managed_message(plan, cfg, state, result) -%}
  {%- if plan.action == 'skip' -%}
    {{- return(plan.reason) -}}
  {%- elif plan.action == 'insert' -%}
    {{- return('appended ' ~ result.rows ~ ' row' ~ ('s' if result.rows != 1 else '') ~ ' (' ~ plan.reason ~ ')') -}}
  {%- elif plan.action == 'apply_changes' -%}
    {{- return(result.detail) -}}
  {%- elif plan.action == 'intervals' -%}
    {{- return((plan.reason ~ ': ' if plan.rebuild else '') ~ result.detail) -}}
  {%- endif -%}
  {%- set rows = result.rows ~ ' row' ~ ('s' if result.rows != 1 else '') -%}
  {%- if plan.action == 'build' -%}
    {{- return(plan.reason ~ ' (' ~ rows ~ ')') -}}
  {%- endif -%}
  {%- set where = '' -%}
  {%- if cfg.along and plan.window.lower is not none -%}
    {%- set value = plan.window.lower if cfg.along_kind == 'integer' else "'" ~ plan.window.lower ~ "'" -%}
    {%- set where = ' with ' ~ cfg.along ~ ' ' ~ plan.window.lower_op ~ ' ' ~ value -%}
  {%- endif -%}
  {%- if result.get('nothing') -%}
    {%- set scope = 'nothing to replace' -%}
  {%- elif result.partitions is not none -%}
    {%- set scope = 'replaced ' ~ result.partitions ~ ' partition' ~ ('s' if result.partitions != 1 else '') -%}
  {%- elif result.detail == 'merged' -%}
    {%- set scope = 'merged' -%}
  {%- else -%}
    {%- set scope = 'rewrote the table' -%}
  {%- endif -%}
  {%- set detail = (', ' ~ result.detail) if result.detail and result.detail != 'merged' else '' -%}
  {%- set keyed = ' on ' ~ cfg.unique_key | join(', ') ~ ((' (' ~ cfg.merge_columns.key ~ ': '
      ~ cfg.merge_columns.columns | join(', ') ~ ')') if cfg.get('merge_columns') else '') -%}
  {%- if plan.action == 'overwrite' -%}
    {{- return('wrote ' ~ rows ~ ': ' ~ scope ~ detail ~ " (incremental_strategy 'insert_overwrite'"
        ~ ('; unique_key is not used, as in dbt-spark' if cfg.unique_key else '') ~ ')') -}}
  {%- elif plan.action == 'append' and not plan.by_key -%}
    {{- return('appended ' ~ rows ~ where) -}}
  {%- elif plan.action == 'append' -%}
    {{- return('appended ' ~ rows ~ where ~ ' (upsert' ~ keyed ~ ': ' ~ scope ~ detail ~ ')') -}}
  {%- elif plan.action == 'replace_range' -%}
    {{- return('replaced rows' ~ where ~ ' by ' ~ rows ~ (' (upsert' ~ keyed ~ ')' if plan.by_key else '') ~ ': '
        ~ scope ~ detail ~ '; ' ~ plan.reason) -}}
  {%- endif -%}
  {{- return('upserted ' ~ rows ~ keyed ~ ': ' ~ scope ~ detail) -}}
{%- endmacro %}

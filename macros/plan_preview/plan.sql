{#- dbt run-operation spark_incremental.plan
    What the next dbt run will do and what it will read, before it starts. Reads only: it
    takes no run lock, writes nothing and never waits for a running pipeline. Every
    decision is the one the run makes: the run limits (get_run_limits), the rule for
    models with no new events (_no_new_events_reason), the managed_incremental plan
    (_managed_plan_for_node with preview). What a model reads is listed from metadata
    (_plan_scan): the events table's partitions in the window's literal bounds (the
    partition filter of every window scan, _events_partition_filter), and for the other
    models the tables they depend on. With spark_incremental__plan_format json it also
    logs one line 'spark_incremental plan json: {...}'. It also says who holds the run
    lock, if anyone, and whether the next run would be refused or take it over
    (_run_lock_status). With described changes it prints the refresh plan block the run's
    start hook logs (_format_refresh_plan of the models' own refresh plans). -#}
{% macro plan() -%}
  {{- return(adapter.dispatch('plan', 'spark_incremental')()) -}}
{%- endmacro %}


{% macro default__plan() -%}
  {%- if not execute -%}
    {{- return('') -}}
  {%- endif -%}
  {%- set plan_format = spark_incremental.get_config_var('plan_format') -%}
  {%- do spark_incremental._check_restate_models(selection=false) -%}
  {%- set now = spark_incremental.now() -%}
  {%- set tracked = spark_incremental.tracked_models() -%}
  {%- set managed = spark_incremental._managed_nodes() -%}
  {#- first: its read of the log brings the manifest state the run limits then use -#}
  {%- set lock = spark_incremental._run_lock_status() -%}
  {%- set entries = [] -%}
  {%- set limits = none -%}
  {%- if spark_incremental._events_enabled() and spark_incremental._node_by_name('spark_incremental_base_new_event_limits') is not none -%}
    {%- set limits = spark_incremental.get_run_limits() -%}
    {%- do entries.extend(spark_incremental._plan_base_chain(limits, tracked, managed, now)) -%}
  {%- endif -%}
  {%- set listed = entries | map(attribute='model') | list -%}
  {%- for name in (tracked + managed.keys() | list) | unique | sort if name not in listed -%}
    {%- do entries.append(spark_incremental._plan_model(spark_incremental._node_by_name(name), limits,
        name in tracked, managed.get(name))) -%}
  {%- endfor -%}
  {%- do spark_incremental._log('plan of the next run at ' ~ spark_incremental._ts_text(now) ~ ' UTC (nothing was written)') -%}
  {%- for line in lock.lines -%}
    {%- do spark_incremental._log(line) -%}
  {%- endfor -%}
  {%- if entries | length == 0 -%}
    {%- do spark_incremental._log('no tracked or managed_incremental models and no events pipeline in this project') -%}
  {%- endif -%}
  {%- set total = spark_incremental._plan_total(entries) -%}
  {%- do spark_incremental._plan_print(entries, total) -%}
  {#- described changes: the refresh plan block the run's on-run-start hook logs (plan_changes),
      from the models' own refresh plans, for a run that selects every model -#}
  {%- set changes = spark_incremental.get_changes() if spark_incremental._raw_changes() | length > 0 else [] -%}
  {%- if changes | length > 0 -%}
    {%- do spark_incremental._log(spark_incremental._format_refresh_plan(changes,
        entries | selectattr('refresh_plan') | map(attribute='refresh_plan') | list)) -%}
  {%- endif -%}
  {%- set restate = none -%}
  {%- if limits is not none and limits.state == 5 -%}
    {%- set restate = {'start': spark_incremental._ts_text(limits.lower_limit),
                       'end': spark_incremental._ts_text(limits.upper_limit)} -%}
  {%- endif -%}
  {%- if plan_format == 'json' -%}
    {%- do log('spark_incremental plan json: ' ~ tojson({'generated_at': spark_incremental._ts_text(now),
        'models': entries, 'total': total, 'lock': lock.locks,
        'changes': spark_incremental._plan_json_safe(changes), 'restate': restate}, sort_keys=true), info=true) -%}
  {%- endif -%}
  {{- return('') -}}
{%- endmacro %}


{#- The base chain's entries: the run limits (state, window, why), and the window's scan
    of the events table (spark_incremental_base_events_in_window, the run's one scan of
    the window), beside the scan of the first window from start_date (what a run reads
    once the state is forgotten: --full-refresh with allow_refresh). -#}
{% macro _plan_base_chain(limits, tracked, managed, now) -%}
  {%- set run_vars = spark_incremental._validate_run_vars() -%}
  {%- set first = spark_incremental.calculate_run_limits(none, none, 0, tracked | length, run_vars.start_date,
      run_vars.backfill_limit_days, run_vars.lookback_window_hours, now, tracked) -%}
  {%- set events = spark_incremental.events_relation() -%}
  {%- set window = spark_incremental._plan_window_scan(events, limits.lower_limit, limits.upper_limit) -%}
  {%- set full = spark_incremental._plan_window_scan(events, first.lower_limit, first.upper_limit) -%}
  {%- set state_text = 'state ' ~ limits.state ~ ": events '" ~ spark_incremental._ts_text(limits.lower_limit)
      ~ "' to '" ~ spark_incremental._ts_text(limits.upper_limit) ~ "' (" ~ limits.description ~ ')'
      ~ ('; nothing new: every model skips its work' if limits.get('nothing_new') else '') -%}
  {%- set notes = {
      'spark_incremental_base_new_event_limits': state_text,
      'spark_incremental_base_events_in_window': "scans the window of the events table (the run's one scan of it)",
      'spark_incremental_base_sessions_lifecycle_manifest': 'adds the sessions of the window',
      'spark_incremental_base_quarantined_sessions': 'adds the sessions that reach max_session_days',
      'spark_incremental_base_sessions_this_run': 'rebuilt: the sessions of the window',
      'spark_incremental_base_events_this_run': 'rebuilt: every event of those sessions; sessions begun before the window'
          ~ ' send it back to the events table before the window, a range known only during the run (not in the figures)',
  } -%}
  {%- set entries = [] -%}
  {%- for name, note in notes.items() if spark_incremental._node_by_name(name) is not none -%}
    {%- set entry = {'model': name, 'kind': 'base', 'action': 'skip' if limits.get('nothing_new') else 'process',
        'detail': note if loop.first else state_text.split(' (')[0] ~ ': ' ~ note, 'inputs': []} -%}
    {%- if name in managed -%}
      {#- a managed_incremental base model (the lifecycle manifest): its own plan decides -#}
      {%- set planned = spark_incremental._plan_model(managed[name], limits, false, managed[name]) -%}
      {%- do entry.update({'kind': 'base + ' ~ planned.kind, 'action': planned.action,
          'detail': planned.detail ~ '; ' ~ entry.detail, 'inputs': planned.inputs,
          'plan': planned.plan, 'refresh_plan': planned.refresh_plan}) -%}
    {%- endif -%}
    {%- do entry.update({'state': limits.state, 'lower_limit': spark_incremental._ts_text(limits.lower_limit),
        'upper_limit': spark_incremental._ts_text(limits.upper_limit)}) -%}
    {%- if name == 'spark_incremental_base_events_in_window' -%}
      {#- a skip reads nothing (the one read of an empty window is the limits' query) -#}
      {%- do entry.inputs.append(spark_incremental._plan_input(none if entry.action == 'skip' else window, full)) -%}
    {%- endif -%}
    {%- do entries.append(entry) -%}
  {%- endfor -%}
  {{- return(entries) -}}
{%- endmacro %}


{#- The scan of the events table between two bounds: the files of the partitions the
    window's partition filter selects (_events_partition_filter, the literal bounds of
    every window scan), and as estimated rows the rows of each partition times the share
    of its day (the UTC date of the session timestamp) inside [lower, upper]: Spark skips
    the row groups whose session timestamps all lie outside by their Parquet statistics,
    and a day's events are spread over it. Without a partition column: the whole table. -#}
{% macro _plan_window_scan(events, lower_limit, upper_limit) -%}
  {%- set scan = {} -%}
  {%- do scan.update(spark_incremental._plan_scan(events,
      spark_incremental._events_partition_filter(lower_limit, upper_limit))) -%}
  {%- if scan.by_partition | length == 0 -%}
    {{- return(scan) -}}
  {%- endif -%}
  {%- set partition_format = spark_incremental._events_partition_format() -%}
  {%- set day = modules.datetime.timedelta(days=1) -%}
  {%- set state = namespace(rows=0.0) -%}
  {%- for part in scan.by_partition.values() -%}
    {%- set text = part['values'][0] | string -%}
    {%- set start = modules.datetime.datetime.strptime(text[:8] if partition_format == 'int' else text[:10],
        '%Y%m%d' if partition_format == 'int' else '%Y-%m-%d') -%}
    {%- set inside = ([upper_limit, start + day] | min) - ([lower_limit, start] | max) -%}
    {%- set state.rows = state.rows + part.rows * ([inside.total_seconds(), 0] | max) / day.total_seconds() -%}
  {%- endfor -%}
  {%- do scan.update({'estimated_rows': state.rows | round | int}) -%}
  {{- return(scan) -}}
{%- endmacro %}


{#- A tracked and/or managed_incremental model's entry: its action as the run decides it,
    and the tables it depends on (graph.nodes depends_on). A model's SQL decides which
    rows of an input it selects, so an incremental action lists each input whole (what
    the scan lists before the model's own filters prune it: an upper bound); a skip reads
    nothing. -#}
{% macro _plan_model(node, limits, is_tracked, managed_node) -%}
  {%- set kinds = [] -%}
  {%- set details = [] -%}
  {%- set entry = {'model': node.name, 'action': none, 'inputs': []} -%}
  {%- if is_tracked -%}
    {%- do kinds.append('events') -%}
    {%- set no_new = spark_incremental._no_new_events_reason(limits, node.name) if limits is not none else none -%}
    {%- set window_text = 'no events pipeline' if limits is none
        else (no_new or "the run's window (state " ~ limits.state ~ ')') -%}
    {%- if limits is not none -%}
      {%- do entry.update({'state': limits.state, 'lower_limit': spark_incremental._ts_text(limits.lower_limit),
          'upper_limit': spark_incremental._ts_text(limits.upper_limit)}) -%}
    {%- endif -%}
    {%- do entry.update({'action': 'skip' if no_new else 'process'}) -%}
    {%- do details.append((entry.action ~ ': ' if managed_node is none else 'events: ') ~ window_text) -%}
  {%- endif -%}
  {%- if managed_node is not none -%}
    {%- set planned = spark_incremental._managed_plan_for_node(managed_node, api.Relation.create(
        database=managed_node.database, schema=managed_node.schema, identifier=managed_node.alias, type='table'),
        false, false, preview=true, limits=limits) -%}
    {%- set managed = spark_incremental._plan_managed_detail(planned) -%}
    {%- do kinds.append('managed: ' ~ planned.cfg.mutability_type) -%}
    {%- do details.insert(0, managed.text) -%}
    {%- do entry.update({'action': planned.plan.action, 'plan': managed.plan, 'refresh_plan': managed.refresh_plan}) -%}
  {%- endif -%}
  {%- do entry.update({'kind': kinds | join(' + '), 'detail': details | join('; ')}) -%}
  {%- for dependency in node.depends_on.nodes -%}
    {%- set relation = spark_incremental._plan_dependency_relation(dependency) -%}
    {%- if relation is not none -%}
      {%- set whole = spark_incremental._plan_scan(relation) -%}
      {%- set input = spark_incremental._plan_input(none if entry.action == 'skip' else whole, whole) -%}
      {%- if dependency.startswith('model.') -%}
        {%- do input.update({'note': 'a model this run updates first: its files now'}) -%}
      {%- endif -%}
      {%- do entry.inputs.append(input) -%}
    {%- endif -%}
  {%- endfor -%}
  {{- return(entry) -}}
{%- endmacro %}


{#- A managed_incremental model's next run from its plan (_managed_plan_for_node, the run's
    own): {text, plan, refresh_plan}. text: the action and reason (_managed_next_run_text),
    then what the run logs of it: the operations of its refresh plan for described changes
    (_format_refresh_plan_operations, the texts of the run's refresh plan block), the time
    intervals it processes (the batches before the run's probe drops the empty ones) and
    the ranges a restatement redoes, and the notes the run logs (kept by forward_only,
    changes already applied). plan: the run's plan object in JSON-safe form, without its
    change_plan; refresh_plan: the refresh plan of the described changes that reach the
    model (also when they make it rebuild), with lines (those texts), or none. -#}
{% macro _plan_managed_detail(planned) -%}
  {%- set plan = planned.plan -%}
  {%- set parts = [spark_incremental._managed_next_run_text(plan)] -%}
  {%- set refresh_plan = none -%}
  {%- if planned.flags.change_plan is not none -%}
    {%- set refresh_plan = {} -%}
    {%- do refresh_plan.update(planned.flags.change_plan) -%}
    {%- do refresh_plan.update({'lines': spark_incremental._format_refresh_plan_operations(refresh_plan)}) -%}
    {%- if plan.action == 'apply_changes' -%}
      {%- do parts.append(refresh_plan.lines | join('; ')) -%}
    {%- endif -%}
  {%- endif -%}
  {%- if plan.action == 'intervals' and plan.work.batches | length > 0 -%}
    {%- set batches = plan.work.batches -%}
    {%- do parts.append(spark_incremental._plan_range_text(batches[0])
        ~ (' .. ' ~ spark_incremental._plan_range_text(batches[-1]) if batches | length > 1 else '')) -%}
  {%- endif -%}
  {%- set texts = [parts | join(': ')] -%}
  {%- for pair in plan.get('restated') or [] -%}
    {%- do texts.append('restate redoes ' ~ spark_incremental._plan_range_text(pair)) -%}
  {%- endfor -%}
  {%- for note in [plan.get('kept'), plan.get('changes_skipped')] if note -%}
    {%- do texts.append(note) -%}
  {%- endfor -%}
  {%- set shown = {} -%}
  {%- for key, value in plan.items() if key != 'change_plan' -%}
    {%- do shown.update({key: value}) -%}
  {%- endfor -%}
  {{- return({'text': texts | join('; '), 'plan': spark_incremental._plan_json_safe(shown),
              'refresh_plan': spark_incremental._plan_json_safe(refresh_plan)}) -}}
{%- endmacro %}


{#- [start, end) of a time range, as the run's interval batches log it. -#}
{% macro _plan_range_text(pair) -%}
  {{- return('[' ~ spark_incremental._ts_text(pair[0]) ~ ', ' ~ spark_incremental._ts_text(pair[1]) ~ ')') -}}
{%- endmacro %}


{#- A value tojson can write: timestamps as 'YYYY-MM-DD HH:MM:SS' text, mappings and lists
    converted item by item, strings, numbers, booleans and none as they are, anything else
    as its text. -#}
{% macro _plan_json_safe(value) -%}
  {%- if value is none or value is string or value is boolean or value is integer or value is float -%}
    {{- return(value) -}}
  {%- elif value is mapping -%}
    {%- set safe = {} -%}
    {%- for key, item in value.items() -%}
      {%- do safe.update({key | string: spark_incremental._plan_json_safe(item)}) -%}
    {%- endfor -%}
    {{- return(safe) -}}
  {%- elif value.strftime is defined -%}
    {{- return(spark_incremental._ts_text(value)) -}}
  {%- elif value is iterable -%}
    {%- set safe = [] -%}
    {%- for item in value -%}
      {%- do safe.append(spark_incremental._plan_json_safe(item)) -%}
    {%- endfor -%}
    {{- return(safe) -}}
  {%- endif -%}
  {{- return(value | string) -}}
{%- endmacro %}


{#- The relation of a node a model depends on (a source, model, seed or snapshot), or
    none (an ephemeral model, a test, a macro). -#}
{% macro _plan_dependency_relation(unique_id) -%}
  {%- if unique_id.startswith('source.') -%}
    {%- set source = graph.sources.get(unique_id) -%}
    {{- return(api.Relation.create(database=source.database, schema=source.schema,
                                   identifier=source.identifier, type='table') if source else none) -}}
  {%- endif -%}
  {%- set node = graph.nodes.get(unique_id) -%}
  {%- if node is none or node.resource_type not in ['model', 'seed', 'snapshot']
        or node.config.materialized == 'ephemeral' -%}
    {{- return(none) -}}
  {%- endif -%}
  {{- return(api.Relation.create(database=node.database, schema=node.schema, identifier=node.alias, type='table')) -}}
{%- endmacro %}


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
  {%- set widths = [] -%}
  {%- for i in range(header | length) -%}
    {%- do widths.append(table | map(attribute=i) | map('string') | map('length') | max) -%}
  {%- endfor -%}
  {%- for cells in table -%}
    {%- if loop.last -%}
      {%- do log('-' * (widths | sum + 3 * (widths | length - 1)), info=true) -%}
    {%- endif -%}
    {%- set padded = [] -%}
    {%- for cell in cells -%}
      {%- do padded.append((cell | string).ljust(widths[loop.index0])) -%}
    {%- endfor -%}
    {%- do log(padded | join(' | '), info=true) -%}
    {%- if loop.first -%}
      {%- do log('-' * (widths | sum + 3 * (widths | length - 1)), info=true) -%}
    {%- endif -%}
  {%- endfor -%}
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

{#- A run whose window held events but none of spark_incremental__app_ids (a misspelt app,
    or a list the environment passed as one name) processes nothing, and its progress
    still moves past the window: without a word, the events of the apps meant are never
    read. When the window held no event to process and app_ids is set, one query over the
    window (the run read it already) counts its events and those of the apps, and names
    the apps it holds; a warning when there were events but none of the apps. Called by
    the end hook (_manifest_progress_rows) only for such an empty window. -#}
{% macro _warn_unmatched_app_ids(lower_limit, upper_limit) -%}
  {%- set session_vars = spark_incremental.validate_session_vars() -%}
  {%- if session_vars.app_ids | length == 0 or not session_vars.app_id_column -%}
    {{- return(none) -}}
  {%- endif -%}
  {%- set column = adapter.quote(session_vars.app_id_column) -%}
  {%- set sql -%}
    select
        count(*) as events,
        count_if({{ column }} in ({{ spark_incremental._quoted_app_ids(session_vars) }})) as matched,
        array_join(slice(array_sort(collect_set(cast({{ column }} as string))), 1, 10), ', ') as apps,
        count(distinct {{ column }}) as app_count
    from {{ spark_incremental.events_relation() }}
    where
        {{ spark_incremental.events_window_filter(lower_limit, upper_limit) }}
  {%- endset -%}
  {%- set row = spark_incremental._fetch_rows(sql)[0] -%}
  {%- if (row[0] or 0) > 0 and (row[1] or 0) == 0 -%}
    {%- do spark_incremental._warn('spark_incremental__app_ids = [' ~ session_vars.app_ids | join(', ')
        ~ '] matched none of the ' ~ row[0] ~ ' events of this run\'s window [\''
        ~ spark_incremental._ts_text(lower_limit) ~ '\', \'' ~ spark_incremental._ts_text(upper_limit)
        ~ '\'] (' ~ session_vars.app_id_column ~ ' there: ' ~ (row[2] or 'null')
        ~ (', ...' if (row[3] or 0) > 10 else '') ~ '), so the run processed none of them and its'
        ~ ' progress moves past the window. If the var is wrong, fix it (a list as text: \'[a, b]\''
        ~ ' or \'a,b\'), then restate this range (spark_incremental__restate, README "Restating a range of events").') -%}
  {%- endif -%}
{%- endmacro %}

{#- Warn when the Spark session's time zone (spark.sql.session.timeZone, read from Spark,
    so it works on the first run) is not UTC: the package treats every timestamp as UTC.
    The read of the current manifest state brings it along (_manifest_current_rows); a
    query of its own only when that read found no row. -#}
{% macro _check_session_time_zone() -%}
  {%- set zone = spark_incremental._run_cache('session_time_zone').get('zone') -%}
  {%- if zone is none -%}
    {%- set zone = spark_incremental._fetch_value('select current_timezone()') -%}
  {%- endif -%}
  {%- if zone not in ['UTC', 'Etc/UTC', 'Etc/UCT', 'UCT', 'Z', '+00:00', 'GMT', 'Etc/GMT', 'Zulu'] -%}
    {%- do spark_incremental._warn("the Spark session time zone is '" ~ zone ~ "', not UTC: "
        ~ spark_incremental._session_time_zone_advice(target.method)
        ~ " (the package treats all timestamps as UTC).") -%}
  {%- endif -%}
  {{- return(zone) -}}
{%- endmacro %}

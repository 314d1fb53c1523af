{#- How to set the session time zone to UTC, for the profile's connection method. With
    method thrift, PyHive sends server_side_parameters as Hive session settings: a plain
    spark.sql.* key there does not reach the Spark session (measured on Spark 3.5 and 4.3:
    current_timezone() unchanged), only a key prefixed set:hiveconf: does. With method
    session they configure the SparkSession builder. Other methods (odbc, http): both
    forms, as the server decides. -#}
{% macro _session_time_zone_advice(method) -%}
  {%- set hiveconf = "\"set:hiveconf:spark.sql.session.timeZone\": UTC" -%}
  {%- set plain = "spark.sql.session.timeZone: UTC" -%}
  {%- if method == 'thrift' -%}
    {{- return("set " ~ hiveconf ~ " in the profile's server_side_parameters (with method: thrift a plain "
        ~ plain ~ " there never reaches the Spark session), or start the Thrift server with"
        ~ " --conf spark.sql.session.timeZone=UTC") -}}
  {%- elif method == 'session' -%}
    {{- return("set " ~ plain ~ " in the profile's server_side_parameters") -}}
  {%- endif -%}
  {{- return("set " ~ plain ~ " in the profile's server_side_parameters (for a Spark Thrift server reached"
      ~ " through PyHive: " ~ hiveconf ~ "), or in the Spark config of the server or cluster") -}}
{%- endmacro %}

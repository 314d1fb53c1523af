{#- dbt's unique on the events table's event id column, whatever its name: the column
    spark_incremental__event_identifier names (event_id for Snowplow), read from the var
    spec when the test runs (see event_identifier_not_null). -#}
{% test event_identifier_unique(model) -%}
  {{- adapter.dispatch('test_unique', 'dbt')(model, adapter.quote(spark_incremental.get_config_var('event_identifier'))) -}}
{%- endtest %}

{#- dbt's not_null on the events table's event id column, whatever its name: the column
    spark_incremental__event_identifier names (event_id for Snowplow), read from the var
    spec when the test runs. spark_incremental_base_events_this_run keeps the table's own
    column names, so a column-level test on a fixed name (event_id) fails on any other
    table. Used in models/base/base.yml as a model-level test. -#}
{% test event_identifier_not_null(model) -%}
  {{- adapter.dispatch('test_not_null', 'dbt')(model, adapter.quote(spark_incremental.get_config_var('event_identifier'))) -}}
{%- endtest %}

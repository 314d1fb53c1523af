{#- Check the time column against the model query's columns ([(name, type)], from
    `describe query`: nothing runs): it must be one of them, of type date or timestamp. -#}
{% macro _interval_check_columns(model_name, settings, query_columns) -%}
  {%- set types = {} -%}
  {%- for name, data_type in query_columns -%}
    {%- do types.update({name | lower: data_type | lower}) -%}
  {%- endfor -%}
  {%- if settings.time_column not in types -%}
    {%- do exceptions.raise_compiler_error(
        "spark_incremental: model '" ~ model_name ~ "': time_column '" ~ settings.time_column
        ~ "' is not a column of the model (its columns: " ~ types.keys() | join(', ') ~ ")") -%}
  {%- endif -%}
  {%- if types[settings.time_column] not in ['date', 'timestamp', 'timestamp_ntz'] -%}
    {%- do exceptions.raise_compiler_error(
        "spark_incremental: model '" ~ model_name ~ "': time_column '" ~ settings.time_column ~ "' is "
        ~ types[settings.time_column] ~ "; it must be a date or a timestamp") -%}
  {%- endif -%}
{%- endmacro %}

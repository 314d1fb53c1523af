{#- A test hook of the write layer (the fault suite, tests/test_faults.py). -#}


{#- Test hook: the var spark_incremental__fail_at names a point where the run stops with
    an error, to simulate a job killed half-way ('before_overwrite', 'after_rename_old',
    'after_write'). Never set it in production. -#}
{% macro _managed_fault(point) -%}
  {%- if spark_incremental.get_config_var('fail_at') == point -%}
    {%- do exceptions.raise_compiler_error("spark_incremental: stopped at '" ~ point
        ~ "' (spark_incremental__fail_at, a test hook simulating a killed run)") -%}
  {%- endif -%}
{%- endmacro %}

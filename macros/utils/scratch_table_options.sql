{#- The options clause of a parquet table the package writes only to read back soon: the
    run tables (rewritten by every run with new events), a managed upsert's stage and apply
    tables (dropped once the target is written). Parquet's dictionary encoding is off: it
    pays when files are kept and read often, and these are written once and read once or
    twice. Writing events_in_window took 2.04 s instead of 3.00 s (median of 4 rounds,
    385,000 events), events_this_run 9.40 s instead of 10.63 s, with no slower read
    (benchmarks/results/fixed_cost/scratch_tables_without_dictionary_d759ccd.md). Nothing
    for another file format. -#}
{% macro _scratch_table_options(file_format='parquet') -%}
  {{- return("options ('parquet.enable.dictionary' = 'false')" if file_format | lower == 'parquet' else '') -}}
{%- endmacro %}

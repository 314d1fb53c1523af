{#- Whether this invocation writes tables: dbt run or dbt build. dbt retry takes the flags
    of the command it repeats, so under a retry flags.WHICH is 'run' or 'build' too;
    compile, show, docs, test and run-operation write no model's table. The one test for
    every rule that only a writing command may act on: the run lock and its heartbeat,
    the manifest rows, the repair of an interrupted write, the run tables' check, the
    run limits kept for the invocation. -#}
{% macro _command_writes() -%}
  {{- return(flags.WHICH in ['run', 'build']) -}}
{%- endmacro %}

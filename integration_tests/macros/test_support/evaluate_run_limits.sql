{#- run-operation used by the tests: evaluates spark_incremental.calculate_run_limits for
    a list of vectors and logs one JSON line per vector. -#}
{% macro evaluate_run_limits(vectors, start_date, backfill_limit_days, lookback_window_hours, now) -%}
  {%- for vector in vectors -%}
    {%- set limits = spark_incremental.calculate_run_limits(
        spark_incremental._parse_ts(vector.min_last_success),
        spark_incremental._parse_ts(vector.max_last_success),
        vector.matched, vector.expected,
        spark_incremental._parse_ts(start_date), backfill_limit_days, lookback_window_hours,
        spark_incremental._parse_ts(now),
        first_event=spark_incremental._parse_ts(vector.get('first_event'))) -%}
    {%- do log('run_limits_vector: ' ~ tojson({
        'name': vector.name,
        'state': limits.state,
        'lower_limit': spark_incremental._ts_text(limits.lower_limit),
        'upper_limit': spark_incremental._ts_text(limits.upper_limit),
    }), info=true) -%}
  {%- endfor -%}
{%- endmacro %}

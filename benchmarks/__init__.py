"""Benchmark of spark_incremental: what an incremental run costs against the history it skips.

``python -m benchmarks.run`` (or ``make bench``) starts one local Spark Thrift server,
generates Snowplow-like events with Spark SQL, runs every case of issue 6 and writes
``benchmarks/results/results.md`` and ``benchmarks/results/plot.png``.
"""

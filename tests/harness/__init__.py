"""Test harness for spark_incremental: a real Spark Thrift server, a SQL client, dbt.

- ``tests.harness.spark``: ``ThriftServer`` (start / stop / kill / restart), ``find_spark_home``
- ``tests.harness.sql``: ``SparkSql`` (query, create_table, insert_rows, table_rows, ...)
- ``tests.harness.dbt``: ``DbtProject`` (a private copy of integration_tests/), ``DbtResult``
"""

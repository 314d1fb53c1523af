"""Partition strategies (AtScale) on managed_incremental: indicator, user, distribution."""

from __future__ import annotations

import datetime as dt

from tests.harness.dbt import DbtProject
from tests.harness.sql import SparkSql

SOURCES_YML = """
version: 2
sources:
  - name: facts
    schema: "{{ target.schema }}"
    tables:
      - name: one_month
      - name: three_months
"""

APPEND = "mutability={'type': 'ds_append_only'}"
INDICATOR = "mutability={'type': 'incremental_indicator', 'type_params': {'indicator': 'ts'}}"

MODELS = {
    # the day level of a date column is the column itself
    "ps_indicator": (APPEND, "partition_strategy='indicator'", "one_month", ["ds"]),
    # a timestamp's day level is a generated column
    "ps_indicator_ts": (INDICATOR, "partition_strategy='indicator'", "one_month", ["ts_day"]),
    # the user's partition_by names a level
    "ps_user": (APPEND, "partition_strategy='user', partition_by='month'", "one_month", ["ds_month"]),
    # 60 rows, 30 days, 1 month, 1 year; target 31: day (2) and month/year (60) tie -> day
    "ps_distribution_tie": (APPEND, "partition_strategy='distribution'", "one_month", ["ds"]),
    # 90 rows, 90 days, 3 months, 1 year; target 31: month (30) is closest
    "ps_distribution": (APPEND, "partition_strategy='distribution'", "three_months", ["ds_month"]),
    # not a level of the hierarchy
    "ps_user_bad": (APPEND, "partition_strategy='user', partition_by='product'", "one_month", None),
}


def partition_columns(spark_sql: SparkSql, relation: str) -> list[str]:
    found, section = [], False
    for name, _, _ in spark_sql.query(f"describe table {relation}"):
        if name == "# Partition Information":
            section = True
        elif section and name and not name.startswith("#"):
            found.append(name)
    return found


def test_partition_strategies(make_project, spark_sql: SparkSql) -> None:
    project: DbtProject = make_project()
    schema = project.schema
    project.write_model("partition_test/sources.yml", SOURCES_YML)
    columns = {"id": "int", "product": "string", "ds": "date", "ts": "timestamp"}
    start = dt.date(2024, 1, 1)
    one_month = [(i, "p", start + dt.timedelta(days=i // 2), dt.datetime(2024, 1, 1) + dt.timedelta(hours=12 * i))
                 for i in range(60)]
    three_months = [(i, "p", start + dt.timedelta(days=i), dt.datetime(2024, 1, 1) + dt.timedelta(days=i))
                    for i in range(90)]
    spark_sql.create_table(f"{schema}.one_month", columns, one_month)
    spark_sql.create_table(f"{schema}.three_months", columns, three_months)
    for name, (mutability, strategy, source, _) in MODELS.items():
        project.write_model(
            f"partition_test/{name}",
            f"{{{{ config(materialized='managed_incremental', {mutability}, {strategy}) }}}}\n"
            f"select id, product, ds, ts from {{{{ source('facts', '{source}') }}}}\n",
        )
    result = project.run("run", "-s", "path:models/partition_test",
                         vars={"spark_incremental__target_partition_rows": 31}, expect_success=False)

    for name, (_, _, source, expected) in MODELS.items():
        if expected is None:
            continue
        assert result.statuses[name] == "success", (name, result.tail(40))
        assert partition_columns(spark_sql, f"{schema}.{name}") == expected, name
        spark_sql.execute(f"refresh table {schema}.{name}")
        count = spark_sql.scalar(f"select count(*) from {schema}.{name}")
        assert count == (60 if source == "one_month" else 90)

    # the generated level column holds the level's value
    assert spark_sql.query(f"select distinct ds_month from {schema}.ps_user") == [(dt.date(2024, 1, 1),)]

    lines = result.pkg_lines()
    assert any("ps_distribution_tie: partition strategy distribution: day level (ds), estimated rows per"
               " partition day 2 (30 partitions), month 60 (1 partitions), year 60 (1 partitions)"
               " from 60 rows; target 31" in line for line in lines), lines
    assert any("ps_distribution: partition strategy distribution: month level (ds_month)" in line
               and "month 30 (3 partitions)" in line for line in lines), lines

    assert result.statuses["ps_user_bad"] == "error"
    assert ("partition_strategy 'user' accepts a partition_by that is one level of ds's date hierarchy:"
            " ds (day), ds_month (month), ds_year (year) (or the level's name); got partition_by = product,"
            " which is not a level of the hierarchy") in result.text()
    assert not spark_sql.relation_exists(f"{schema}.ps_user_bad")

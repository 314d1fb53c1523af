"""The harness works end to end: server, SQL client, dbt in-process."""

from __future__ import annotations

import datetime as dt

import pytest

from tests.harness.dbt import DbtProject
from tests.harness.spark import ThriftServer
from tests.harness.sql import SparkSql

pytestmark = pytest.mark.smoke


def test_server_answers_select_1(spark_server: ThriftServer, spark_sql: SparkSql) -> None:
    assert spark_server.is_alive()
    assert spark_sql.scalar("select 1") == 1
    assert spark_server.spark_version[:1] in {"3", "4"}
    assert spark_sql.scalar("select current_timezone()") == "UTC"


def test_create_table_roundtrip(dbt_project: DbtProject, spark_sql: SparkSql) -> None:
    rel = dbt_project.relation("roundtrip")
    columns = {"id": "int", "name": "string", "ts": "timestamp", "d": "date",
               "amount": "double", "flag": "boolean", "p": "string"}
    rows = [
        (2, "it's a \\ back'slash \"quoted\"\nnewline", dt.datetime(2024, 2, 29, 23, 59, 59, 5),
         dt.date(2024, 2, 29), 1.5, True, "a"),
        {"id": 1, "p": "b"},  # a dict row: the missing columns are null
        (3, None, dt.datetime(1970, 1, 1), None, None, False, "a"),
    ]
    spark_sql.create_table(rel, columns, rows, partitioned_by=["p"])
    got = spark_sql.table_rows(rel)
    assert got == [
        (1, None, None, None, None, None, "b"),
        (2, rows[0][1], dt.datetime(2024, 2, 29, 23, 59, 59, 5), dt.date(2024, 2, 29), 1.5, True, "a"),
        (3, None, dt.datetime(1970, 1, 1), None, None, False, "a"),
    ]
    assert spark_sql.table_rows(rel, order_by="id desc")[0][0] == 3
    spark_sql.insert_rows(rel, columns, [(4, "x", None, None, None, None, "b")])
    assert spark_sql.scalar(f"select count(*) from {rel}") == 4
    assert spark_sql.query_dicts(f"select id, name from {rel} where id = 4") == [{"id": 4, "name": "x"}]


def test_dbt_run_smoke_model(dbt_project: DbtProject, spark_sql: SparkSql) -> None:
    if not dbt_project.path("models/smoke.sql").exists():
        dbt_project.write_model("smoke.sql", "select 1 as x")
    dbt_project.write_model("harness_echo.sql", "{{ log('spark_incremental: harness echo', info=true) }}\nselect 2 as y")
    result = dbt_project.run("run", "--select", "smoke", "harness_echo")
    assert result.success
    models = {k: v for k, v in result.statuses.items() if k in {"smoke", "harness_echo"}}
    assert models == {"smoke": "success", "harness_echo": "success"}
    assert "spark_incremental: harness echo" in result.pkg_lines()
    assert any("Completed successfully" in line for line in result.lines)
    assert spark_sql.table_rows(dbt_project.relation("harness_echo")) == [(2,)]
    dbt_project.write_model("harness_broken.sql", "select * from no_such_table_anywhere")
    failed = dbt_project.run("run", "--select", "harness_broken", expect_success=False)
    assert failed.statuses["harness_broken"] == "error"
    with pytest.raises(AssertionError, match="last 60 lines"):
        dbt_project.run("run", "--select", "harness_broken")

"""Forward-only managed_incremental models: schema changes without rebuilds, destructive
changes decided by on_destructive_change (error by default, warn, allow)."""

from __future__ import annotations

import datetime as dt

from tests.harness.dbt import DbtProject
from tests.harness.sql import SparkSql, _sort_key

SOURCE = {"id": "int", "name": "string", "amount": "int", "ds": "date"}

SOURCES_YML = """
version: 2
sources:
  - name: app
    schema: "{{ target.schema }}"
    tables:
      - name: orders
"""


def model(columns: str, extra_config: str = "", min_ds: str = "2020-01-01") -> str:
    """A forward-only model; forward_only comes from env_var(), as text ('True'), as a project's may."""
    return f"""{{{{ config(
    materialized='managed_incremental',
    mutability={{'type': 'append_only', 'type_params': {{'along': 'ds', 'min': '{min_ds}'}}}},
    partition_by='ds', forward_only=env_var('SI_TEST_FORWARD_ONLY', 'True'){extra_config},
    options={{'compression': 'gzip'}}, tblproperties={{'spark_incremental_test.owner': 'sales'}},
) }}}}

with

final as (
    select {columns}
    from {{{{ source('app', 'orders') }}}}
)

select * from final
"""


def d(text: str) -> dt.date:
    return dt.date.fromisoformat(text)


def described(spark_sql: SparkSql, relation: str) -> list[tuple[str, str]]:
    out = []
    for name, data_type, _ in spark_sql.query(f"describe table {relation}"):
        if name.startswith("#") or not name:
            break
        out.append((name, data_type))
    return out


def rows(spark_sql: SparkSql, relation: str) -> list[tuple]:
    spark_sql.execute(f"refresh table {relation}")  # dbt wrote it from another Spark session
    return sorted(spark_sql.query(f"select * from {relation}"), key=_sort_key)


def layout(spark_sql: SparkSql, relation: str) -> tuple[str, str]:
    """The table's own tblproperty and its storage properties (the model's options)."""
    owner = spark_sql.query(f"show tblproperties {relation} ('spark_incremental_test.owner')")[0][1]
    return owner, spark_sql.storage_properties(relation)


def test_forward_only_schema_changes(make_project, spark_sql: SparkSql) -> None:
    project: DbtProject = make_project()
    schema = project.schema
    target = f"{schema}.orders_fo"
    project.write_model("forward_only_test/sources.yml", SOURCES_YML)
    source = [(1, "a", 10, d("2024-01-01")), (2, "b", 20, d("2024-01-01"))]
    spark_sql.create_table(f"{schema}.orders", SOURCE, source)
    project.write_model("forward_only_test/orders_fo", model("id, name, amount, ds"))
    project.run("run", "-s", "orders_fo")

    # an added column: `alter table add columns`, old rows keep their values (no rebuild:
    # the renamed source row would show otherwise) and read null in the new column
    source = [(1, "A!", 10, d("2024-01-01")), (2, "b", 20, d("2024-01-01")), (3, "c", 30, d("2024-01-02"))]
    spark_sql.create_table(f"{schema}.orders", SOURCE, source)
    project.write_model("forward_only_test/orders_fo", model("id, name, amount, upper(name) as note, ds"))
    result = project.run("run", "-s", "orders_fo")
    assert any("added columns note" in line for line in result.pkg_lines()), result.pkg_lines()
    assert described(spark_sql, target) == [("id", "int"), ("name", "string"), ("amount", "int"),
                                           ("note", "string"), ("ds", "date")]
    after_add = rows(spark_sql, target)
    assert after_add == [(1, "a", 10, None, d("2024-01-01")), (2, "b", 20, None, d("2024-01-01")),
                         (3, "c", 30, "C", d("2024-01-02"))]

    # a dropped column is destructive: error by default, naming it; nothing changes
    source.append((4, "d", 40, d("2024-01-03")))
    spark_sql.create_table(f"{schema}.orders", SOURCE, source)
    project.write_model("forward_only_test/orders_fo", model("id, name, upper(name) as note, ds"))
    result = project.run("run", "-s", "orders_fo", expect_success=False)
    assert ("model 'orders_fo' is forward_only and its new columns are a destructive change (dropped amount)"
            in result.text()), result.tail(30)
    assert "Nothing was changed" in result.text()
    assert rows(spark_sql, target) == after_add
    assert len(described(spark_sql, target)) == 5

    # warn: applied with a warning; the table's rows are migrated, not rebuilt. The run is
    # killed between the two renames of the migration's swap: the next run finishes it
    # (the migrated copy, not a rebuild from the sources: 'a' stays 'a')
    project.write_model("forward_only_test/orders_fo",
                        model("id, name, upper(name) as note, ds", ", on_destructive_change='warn'"))
    result = project.run("run", "-s", "orders_fo", expect_success=False,
                         vars={"spark_incremental__fail_at": "after_rename_old"})
    assert any("destructive change (dropped amount); applied because on_destructive_change = warn" in line
               for line in result.lines), result.tail(30)
    assert "stopped at 'after_rename_old'" in result.text()
    result = project.run("run", "-s", "orders_fo")
    assert any("recovered: an earlier rebuild stopped half-way through its swap" in line
               for line in result.pkg_lines()), result.tail(30)
    assert described(spark_sql, target) == [("id", "int"), ("name", "string"), ("note", "string"), ("ds", "date")]
    assert rows(spark_sql, target) == [(1, "a", None, d("2024-01-01")), (2, "b", None, d("2024-01-01")),
                                       (3, "c", "C", d("2024-01-02")), (4, "d", "D", d("2024-01-03"))]
    # the migrated copy is built like the table: the model's options and tblproperties kept
    owner, storage = layout(spark_sql, target)
    assert owner == "sales", owner
    assert "compression=gzip" in storage and "partitionOverwriteMode=dynamic" in storage, storage

    # allow: a changed type, applied quietly (one log line)
    project.write_model("forward_only_test/orders_fo",
                        model("cast(id as bigint) as id, name, upper(name) as note, ds", ", on_destructive_change='allow'"))
    result = project.run("run", "-s", "orders_fo")
    assert any("id changed type int -> bigint" in line and "applied (on_destructive_change = allow)" in line
               for line in result.pkg_lines()), result.pkg_lines()
    assert described(spark_sql, target)[0] == ("id", "bigint")
    assert len(rows(spark_sql, target)) == 4

    # a model change that would rebuild a normal model (min changed) keeps the table
    project.write_model("forward_only_test/orders_fo",
                        model("cast(id as bigint) as id, name, upper(name) as note, ds", "", min_ds="2023-01-01"))
    result = project.run("run", "-s", "orders_fo")
    assert any("forward_only: kept the table" in line and "min changed" in line for line in result.pkg_lines()), \
        result.pkg_lines()
    assert rows(spark_sql, target)[0] == (1, "a", None, d("2024-01-01"))  # not rebuilt: still 'a', not 'A!'

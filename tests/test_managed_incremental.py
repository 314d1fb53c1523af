"""managed_incremental on real Spark: each mutability type over several runs.

Every test writes its own source tables and models, runs dbt several times with the
clock pinned (var spark_incremental__now), and compares the target with a full rebuild
from the same source (sorted rows) and the logged action. Several models share one dbt
invocation to keep the file fast.
"""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

import pytest

from benchmarks.metrics import SqlMetrics
from tests.harness.dbt import DbtProject, DbtResult
from tests.harness.sql import SparkSql

D = dt.date
PREFIX = "spark_incremental: "


# ---------------------------------------------------------------------- helpers
@pytest.fixture
def project(dbt_project: DbtProject) -> DbtProject:
    return dbt_project


def model_sql(config: dict[str, Any], body: str) -> str:
    args = ", ".join(f"{key}={value!r}" for key, value in config.items())
    return f"{{{{ config(materialized='managed_incremental', {args}) }}}}\n\n{body}\n"


def said(result: DbtResult, model: str) -> list[str]:
    """What the package logged about `model`, without the prefixes."""
    head = f"{PREFIX}{model}: "
    return [line[len(head):] for line in result.pkg_lines() if line.startswith(head)]


def action(result: DbtResult, model: str) -> str:
    lines = said(result, model)
    assert lines, f"nothing logged for {model}:\n{result.tail(40)}"
    return lines[-1]


def run(project: DbtProject, models: list[str], now: str | None = None, *extra: str,
        vars: dict[str, Any] | None = None, expect_success: bool | None = True) -> DbtResult:
    all_vars = dict(vars or {})
    if now:
        all_vars["spark_incremental__now"] = now
    return project.run("run", "--select", *models, *extra, vars=all_vars, expect_success=expect_success)


def statuses(result: DbtResult, models: Any) -> dict[str, str]:
    return {name: status for name, status in result.statuses.items() if name in set(models)}


def rows(sql: SparkSql, relation: str, columns: str = "*") -> list[tuple]:
    """Sorted rows (of `columns`). REFRESH first: this client is another Spark session, whose
    cached file listing of a table goes stale when dbt's session swaps or overwrites it."""
    if not relation.startswith("("):
        sql.execute(f"refresh table {relation}")
    return sql.table_rows(f"(select {columns} from {relation}) as q")


def state(sql: SparkSql, project: DbtProject, model: str) -> dict[str, Any]:
    """The model's current managed state: its latest 'managed' row in the log."""
    found = sql.query_dicts(
        f"select mutability_type, cast(last_refresh as string) as last_refresh, high_water_mark,"
        f" high_water_mark_type, state, action"
        f" from {project.relation('spark_incremental_manifest_log')}"
        f" where model = '{model}' and record_type = 'managed' order by written_at desc limit 1")
    assert found, f"no managed state for {model}"
    return found[0]


def leftovers(sql: SparkSql, project: DbtProject) -> list[str]:
    return sorted(r[1] for r in sql.query(f"show tables in {project.schema} like '*__si_*'"))


COLS = {"id": "int", "v": "string", "ds": "date"}
COMPILED = "target/compiled/spark_incremental_integration_tests/models/"


# ------------------------------------------------------------ every type, multi-run
def test_each_mutability_type_over_runs(project: DbtProject, spark_sql: SparkSql, spark_server: Any) -> None:
    dim, facts = project.relation("dim_src"), project.relation("facts_src")
    spark_sql.create_table(dim, COLS, [(1, "a", D(2020, 1, 1)), (2, "b", D(2020, 1, 2)), (3, "c", D(2020, 1, 2))])
    spark_sql.create_table(facts, COLS, [(1, "x", D(2020, 1, 1)), (2, "y", D(2020, 1, 2))])
    first_dim, first_facts = rows(spark_sql, dim), rows(spark_sql, facts)

    project.write_model("m_immutable", model_sql({"mutability": {"type": "immutable"}}, f"select * from {dim}"))
    project.write_model("m_full", model_sql(
        {"mutability": {"type": "full_mutation", "type_params": {"update_cron": "0 13 * * *"}}},
        f"select * from {dim}"))
    project.write_model("m_ds_append", model_sql(
        {"mutability": {"type": "ds_append_only", "type_params": {"update_cron": "0 */6 * * *"}}, "partition_by": "ds"},
        f"select * from {facts}\nwhere ds >= {{{{ spark_incremental.along_min() }}}}"
        f" and ds <= {{{{ spark_incremental.along_max() }}}}"))
    project.write_model("m_upsert", model_sql(
        {"unique_key": "id", "partition_by": "ds", "file_format": "parquet"},
        "-- {{ 'incremental run' if spark_incremental.is_incremental() else 'build run' }}\n"
        f"select id, v, ds from {dim}"))
    models = ["m_immutable", "m_full", "m_ds_append", "m_upsert"]

    # run 1: everything is built
    r1 = run(project, models, "2020-01-05 12:00:00")
    assert action(r1, "m_immutable") == "built once (3 rows)"
    for name in ["m_full", "m_upsert"]:
        assert action(r1, name) == "built: first build (3 rows)"
    assert action(r1, "m_ds_append") == "built: first build (2 rows)"
    assert "-- build run" in project.read_file(COMPILED + "m_upsert.sql")

    # the sources change: dim rows are updated, moved and added; facts only grow
    spark_sql.execute(f"insert overwrite table {dim} values (1, 'a2', date'2020-01-01'), (2, 'b', date'2020-01-03'),"
                      f" (3, 'c', date'2020-01-02'), (4, 'd', date'2020-01-03')")
    spark_sql.insert_rows(facts, COLS, [(3, "z", D(2020, 1, 3)), (4, "w", D(2020, 1, 4))])

    # run 2, 12:30: the crons are not due
    probe = SqlMetrics(spark_server.ui_url)
    mark = probe.mark()
    r2 = run(project, models, "2020-01-05 12:30:00")
    # a skipped model writes nothing, so it does not describe its query (Spark's metrics)
    statements = probe.reads_since(mark, project.schema, "-").statements
    described = [st["node"].rsplit(".", 1)[-1] for st in statements if st["sql"].lower().startswith("describe query")]
    assert sorted(described) == ["m_upsert"], described
    # m_upsert's table was built with partitionOverwriteMode = dynamic among its options:
    # its first partition rewrite sets nothing (no alter), and still replaces only its partitions
    altered = [st["sql"] for st in statements if "set serdeproperties" in st["sql"].lower()]
    assert altered == [], altered
    assert action(r2, "m_immutable") == "skipped: immutable"
    assert action(r2, "m_full") == "skipped: next refresh due at 2020-01-05 13:00:00 (update_cron '0 13 * * *')"
    assert action(r2, "m_ds_append") == "skipped: next refresh due at 2020-01-05 18:00:00 (update_cron '0 */6 * * *')"
    assert action(r2, "m_upsert") == "upserted 4 rows on id: replaced 3 partitions"
    assert "-- incremental run" in project.read_file(COMPILED + "m_upsert.sql")
    assert rows(spark_sql, project.relation("m_immutable")) == first_dim
    assert rows(spark_sql, project.relation("m_full")) == first_dim
    assert rows(spark_sql, project.relation("m_ds_append")) == first_facts
    assert rows(spark_sql, project.relation("m_upsert")) == rows(spark_sql, dim)

    # run 3, 18:00: both crons are due
    r3 = run(project, models, "2020-01-05 18:00:00")
    assert action(r3, "m_immutable") == "skipped: immutable"
    assert action(r3, "m_full") == "refreshed: update_cron '0 13 * * *' was due at 2020-01-05 13:00:00 (4 rows)"
    assert action(r3, "m_ds_append") == "appended 2 rows with ds > '2020-01-02'"
    assert "ds >= cast('2020-01-02' as date)" in project.read_file(COMPILED + "m_ds_append.sql")
    for name, source in [("m_full", dim), ("m_ds_append", facts), ("m_upsert", dim)]:
        assert rows(spark_sql, project.relation(name)) == rows(spark_sql, source), name
    assert rows(spark_sql, project.relation("m_immutable")) == first_dim

    # the manifest holds each model's state
    s = state(spark_sql, project, "m_full")
    assert (s["mutability_type"], s["last_refresh"]) == ("full_mutation", "2020-01-05 18:00:00")
    s = state(spark_sql, project, "m_immutable")
    assert (s["mutability_type"], s["last_refresh"], s["action"]) == ("immutable", "2020-01-05 12:00:00", "built once (3 rows)")
    s = state(spark_sql, project, "m_ds_append")
    assert (s["high_water_mark"], s["high_water_mark_type"], s["last_refresh"]) == ("2020-01-04", "date", "2020-01-05 18:00:00")
    assert json.loads(s["state"])["fingerprint"]["along"] == "ds"
    assert leftovers(spark_sql, project) == []


# ------------------------------------------------------- MetricFlow's bookings trap
def test_metricflow_bookings_late_row_with_and_without_grace(project: DbtProject, spark_sql: SparkSql) -> None:
    """MetricFlow's append_only contract silently ignores rows that land later for an
    already-loaded ds (booking 4 on 2020-01-02). Without a grace period that is what
    happens here too; with grace_period 1 (day) it is picked up, and counted once."""
    bookings = project.relation("fct_bookings")
    columns = {"ds": "date", "booking_id": "int", "guest_id": "int", "host_id": "int",
               "listing_id": "int", "is_instant": "boolean", "booking_value": "double"}
    spark_sql.create_table(bookings, columns, [
        (D(2020, 1, 1), 1, 101, 201, 301, True, 100.0),
        (D(2020, 1, 1), 2, 102, 202, 302, False, 250.0),
        (D(2020, 1, 2), 3, 103, 201, 301, True, 75.0),
    ])
    body = (f"with\n\nbookings as (\n    select * from {bookings}\n"
            "    where {{ spark_incremental.along_filter() }}\n),\n\nfinal as (\n    select * from bookings\n)\n\n"
            "select * from final")
    project.write_model("bookings_no_grace", model_sql(
        {"mutability": {"type": "append_only", "type_params": {"along": "ds"}}}, body))
    # the grace period as text, as a config set from env_var() gives it: one day
    project.write_model("bookings_grace", model_sql(
        {"mutability": {"type": "append_only", "type_params": {"along": "ds", "grace_period": "1"}},
         "partition_by": "ds"}, body))
    models = ["bookings_no_grace", "bookings_grace"]
    r1 = run(project, models)
    assert action(r1, "bookings_grace") == "built: first build (3 rows)"

    # booking 4 arrives late for 2020-01-02, booking 5 is new
    spark_sql.insert_rows(bookings, columns, [
        (D(2020, 1, 2), 4, 104, 202, 302, False, 300.0),
        (D(2020, 1, 3), 5, 105, 201, 301, True, 80.0),
    ])
    r2 = run(project, models)
    assert action(r2, "bookings_no_grace") == "appended 1 row with ds > '2020-01-02'"
    assert action(r2, "bookings_grace") == (
        "replaced rows with ds > '2020-01-01' by 3 rows: replaced 2 partitions;"
        " grace_period 1 before the high-water mark 2020-01-02")

    def ids(name: str) -> list[int]:
        return [r[0] for r in rows(spark_sql, project.relation(name), "booking_id")]

    assert ids("bookings_no_grace") == [1, 2, 3, 5]          # booking 4 is missing, exactly
    assert ids("bookings_grace") == [1, 2, 3, 4, 5]          # present once
    every = ", ".join(columns)      # the partitioned target has ds last
    assert rows(spark_sql, project.relation("bookings_grace"), every) == rows(spark_sql, bookings, every)
    assert state(spark_sql, project, "bookings_grace")["high_water_mark"] == "2020-01-03"


def test_append_killed_before_its_first_mark_is_not_appended_twice(project: DbtProject, spark_sql: SparkSql) -> None:
    """The first build loaded nothing (no mark yet); the next append writes its rows and is
    killed before recording its state. The run after must not append them again: a target
    with rows and no mark is rebuilt, and equals its source."""
    src = project.relation("src_late_start")
    spark_sql.create_table(src, COLS, [])
    project.write_model("late_start", model_sql(
        {"mutability": {"type": "append_only", "type_params": {"along": "ds"}}},
        f"select * from {src}\nwhere {{{{ spark_incremental.along_filter() }}}}"))
    run(project, ["late_start"])
    assert state(spark_sql, project, "late_start")["high_water_mark"] is None
    spark_sql.insert_rows(src, COLS, [(1, "a", D(2020, 1, 1)), (2, "b", D(2020, 1, 2))])
    run(project, ["late_start"], vars={"spark_incremental__fail_at": "after_write"}, expect_success=False)
    assert len(rows(spark_sql, project.relation("late_start"))) == 2  # written, not recorded
    again = run(project, ["late_start"])
    assert action(again, "late_start").startswith(
        "full refresh: the target holds rows but no high-water mark is recorded"), again.tail()
    assert rows(spark_sql, project.relation("late_start")) == rows(spark_sql, src)
    assert state(spark_sql, project, "late_start")["high_water_mark"] == "2020-01-02"


def test_a_grace_period_stops_at_min_and_a_new_along_column_is_read_with_its_type(
        project: DbtProject, spark_sql: SparkSql) -> None:
    """A grace period never reaches below type_params.min: a row before min is never
    loaded, with or without the along_filter() in the model's SQL (it used to be loaded as
    soon as the mark minus the grace fell below min), nor by a described change. A model whose along column changes
    from a date to an integer is rebuilt and reads the new column with its own type, and so
    is one whose table is dropped after such a change (both used to stop every run with
    Spark's cast error of the old column's default bound, '1000-01-01' as int). A
    forward-only model kept through a raised min keeps its rows before it, and one whose
    along changes stops, asking for --full-refresh."""
    src = project.relation("g_src")
    cols = {"id": "int", "ds": "date"}
    spark_sql.create_table(src, cols, [(1, D(2020, 1, 1)), (2, D(2020, 1, 2)), (3, D(2020, 1, 3))])
    grace = {"mutability": {"type": "append_only", "type_params": {"along": "ds", "min": "2020-01-02",
                                                                   "grace_period": 3}}, "partition_by": "ds"}
    project.write_model("g_sources.yml", "version: 2\nsources:\n  - name: shop\n"
                        "    schema: \"{{ target.schema }}\"\n    tables:\n      - name: g_src\n")
    source = "{{ source('shop', 'g_src') }}"
    project.write_model("g_plain", model_sql(grace, f"select * from {source}"))
    project.write_model("g_filter", model_sql(grace, f"select * from {source}\nwhere {{{{ spark_incremental.along_filter() }}}}"))
    by_ds = {"mutability": {"type": "append_only", "type_params": {"along": "ds"}}}
    by_id = {"mutability": {"type": "append_only", "type_params": {"along": "id"}}}
    project.write_model("a_along", model_sql(by_ds, f"select * from {src}"))
    # forward-only: a raised min keeps the table, its rows before the new min too
    fo_grace = {"mutability": {"type": "append_only", "type_params": {"along": "ds", "min": "2020-01-01",
                                                                      "grace_period": 3}},
                "partition_by": "ds", "forward_only": True}
    project.write_model("g_fo", model_sql(fo_grace, f"select * from {source}"))
    project.write_model("a_fo", model_sql({**by_ds, "forward_only": True}, f"select * from {src}"))
    models = ["g_plain", "g_filter", "a_along", "g_fo", "a_fo"]
    run(project, models)
    built_fo = rows(spark_sql, project.relation("g_fo"))
    assert built_fo == rows(spark_sql, src)

    def from_min() -> list[tuple]:
        return [row for row in rows(spark_sql, src) if row[1] >= D(2020, 1, 2)]

    spark_sql.insert_rows(src, cols, [(4, D(2020, 1, 1)), (5, D(2020, 1, 3)), (6, D(2020, 1, 4))])
    for mark in ("2020-01-03", "2020-01-04"):  # the mark minus 3 days lies before min both times
        again = run(project, ["g_plain", "g_filter"])
        for name in ("g_plain", "g_filter"):
            assert action(again, name) == (
                "replaced rows with ds >= '2020-01-02' by 4 rows: replaced 3 partitions;"
                f" grace_period 3 before the high-water mark {mark} (not before min 2020-01-02)"), again.tail()
            assert rows(spark_sql, project.relation(name)) == from_min()
    # a described change reaches only the rows from min on, as a build does
    spark_sql.insert_rows(src, cols, [(8, D(2020, 1, 1)), (9, D(2020, 1, 2))])
    described = run(project, ["g_plain", "g_filter"], vars={
        "spark_incremental__changes": [{"table": "g_src", "type": "ADD_ROWS", "scope": "g_src.id >= 8"}]})
    for name in ("g_plain", "g_filter"):
        assert action(described, name) == (
            "change descriptions within ds's min 2020-01-02: added 1 rows where (g_src.id >= 8)"), described.tail()
        assert rows(spark_sql, project.relation(name)) == from_min()

    # min raised on the forward-only model: kept; its grace re-reads and replaces the rows
    # from the new min on, and keeps those before it (2020-01-01 and -02, as built)
    fo_grace["mutability"]["type_params"]["min"] = "2020-01-03"
    project.write_model("g_fo", model_sql(fo_grace, f"select * from {source}"))
    raised = run(project, ["g_fo"])
    assert action(raised, "g_fo").endswith(
        "grace_period 3 before the high-water mark 2020-01-03 (not before min 2020-01-03)"), raised.tail()
    assert action(raised, "g_fo").startswith("replaced rows with ds >= '2020-01-03' by 3 rows"), raised.tail()
    assert rows(spark_sql, project.relation("g_fo")) == sorted(
        [row for row in built_fo if row[1] < D(2020, 1, 3)]
        + [row for row in rows(spark_sql, src) if row[1] >= D(2020, 1, 3)])

    # a forward-only model's along cannot change: its mark is the old column's
    project.write_model("a_fo", model_sql({**by_id, "forward_only": True}, f"select * from {src}"))
    refused = run(project, ["a_fo"], expect_success=False)
    assert ("model 'a_fo' is forward_only and its along column changed from ds to id: a forward-only model"
            " is never rebuilt by a model change, and its recorded high-water mark belongs to the old column"
            ) in refused.text(), refused.tail()
    assert rows(spark_sql, project.relation("a_fo")) == built_fo

    # along from ds (date) to id (int): rebuilt, then appended by id
    project.write_model("a_along", model_sql(by_id, f"select * from {src}"))
    changed = run(project, ["a_along"])
    assert action(changed, "a_along") == "full refresh: along changed from ds to id (8 rows)"
    assert rows(spark_sql, project.relation("a_along")) == rows(spark_sql, src)
    spark_sql.insert_rows(src, cols, [(10, D(2019, 6, 1))])
    appended = run(project, ["a_along"])
    assert action(appended, "a_along") == "appended 1 row with id > 9"
    assert rows(spark_sql, project.relation("a_along")) == rows(spark_sql, src)
    # back to ds with the table dropped: a first build, ds read as a date
    project.write_model("a_along", model_sql(by_ds, f"select * from {src}"))
    spark_sql.execute(f"drop table {project.relation('a_along')}")
    rebuilt = run(project, ["a_along"])
    assert action(rebuilt, "a_along") == "built: first build (the table did not exist) (9 rows)"
    assert rows(spark_sql, project.relation("a_along")) == rows(spark_sql, src)
    assert state(spark_sql, project, "a_along")["high_water_mark"] == "2020-01-04"


def test_the_end_hook_writes_each_models_state_in_its_one_insert(project: DbtProject, spark_sql: SparkSql) -> None:
    """A managed model's state after its write goes into the on-run-end hook's one insert
    (with the run lock's release), stamped when the model reached it, and only if the model
    succeeded: one that fails after its write (a post-hook) records none, and the next run
    redoes its work. A project whose on-run-end does not call update_manifest gets the row
    appended at once."""
    src = project.relation("src_end_state")
    log = project.relation("spark_incremental_manifest_log")
    spark_sql.create_table(src, COLS, [(1, "a", D(2020, 1, 1)), (2, "b", D(2020, 1, 2))])
    project.write_model("end_ok", model_sql({"unique_key": "id", "partition_by": "ds"}, f"select * from {src}"))
    project.write_model("end_post_fails", model_sql(
        {"unique_key": "id", "post_hook": "select * from no_such_table_for_this_test"}, f"select * from {src}"))
    models = ["end_ok", "end_post_fails"]

    first = run(project, models, "2020-01-05 12:00:00", expect_success=False)
    assert statuses(first, models) == {"end_ok": "success", "end_post_fails": "error"}, first.tail()
    assert rows(spark_sql, project.relation("end_post_fails")) == rows(spark_sql, src)  # written, not recorded
    assert any(line.startswith(f"{PREFIX}manifest: no state recorded for end_post_fails") for line in first.pkg_lines())
    managed = spark_sql.query_dicts(
        f"select model, batch_id, written_at from {log} where record_type = 'managed' and model in ('end_ok', 'end_post_fails')")
    unlock = spark_sql.query_dicts(
        f"select batch_id, written_at from {log} where record_type = 'unlock' order by written_at desc limit 1")[0]
    assert [(m["model"], m["batch_id"]) for m in managed] == [("end_ok", unlock["batch_id"])], managed
    assert managed[0]["written_at"] < unlock["written_at"]

    # the post-hook fixed and a row updated: the model without a state redoes its work
    project.write_model("end_post_fails", model_sql({"unique_key": "id"}, f"select * from {src}"))
    spark_sql.execute(f"insert overwrite table {src} values (1, 'a2', date'2020-01-01'), (2, 'b', date'2020-01-02')")
    second = run(project, models, "2020-01-06 12:00:00")
    for name in models:
        assert rows(spark_sql, project.relation(name)) == rows(spark_sql, src), (name, second.tail())
        assert state(spark_sql, project, name)["action"] == action(second, name)

    # no update_manifest in on-run-end (nor the start hook: no lock to release): appended at once
    config = project.read_file("dbt_project.yml")
    hooks = '  - "{{ spark_incremental.start_run() }}"', '  - "{{ spark_incremental.update_manifest() }}"'
    assert all(hook in config for hook in hooks), config
    for hook in hooks:
        config = config.replace(hook, "")
    project.write_file("dbt_project.yml", config.replace("on-run-start:\n", "").replace("on-run-end:\n", ""))
    spark_sql.execute(f"insert overwrite table {src} values (1, 'a3', date'2020-01-01'), (2, 'b', date'2020-01-02')")
    third = run(project, ["end_ok"], "2020-01-07 12:00:00")
    assert rows(spark_sql, project.relation("end_ok")) == rows(spark_sql, src)
    assert state(spark_sql, project, "end_ok")["action"] == action(third, "end_ok")
    latest = spark_sql.query_dicts(f"select batch_id from {log} where model = 'end_ok' and record_type = 'managed'"
                                   f" order by written_at desc limit 1")[0]
    assert spark_sql.query(f"select record_type from {log} where batch_id = '{latest['batch_id']}'") == [("managed",)]


# --------------------------------------------------------- upsert on plain parquet
@pytest.mark.cluster_core
@pytest.mark.slow  # CI runs this in its Spark 3.5 step only; make test runs it everywhere
def test_parquet_upsert_moves_rows_between_partitions_and_recovers(
        project: DbtProject, spark_sql: SparkSql, spark_server: Any) -> None:
    """The query returns only this run's new or changed rows (like a sessionisation
    model); rows move between partitions; a run killed before the overwrite is finished
    by the next run from the leftover staging table. With upsert_date_key on the
    partition column, the search for existing keys reads only the partitions from the
    bound on (Spark's metrics)."""
    batch = project.relation("batch_src")
    spark_sql.create_table(batch, COLS, [
        (1, "a", D(2020, 1, 1)), (2, "b", D(2020, 1, 2)), (3, "c", D(2020, 1, 3)),
        (4, "d", D(2020, 1, 1)), (5, "e", D(2020, 1, 2)), (6, "f", D(2020, 1, 2)),
    ])
    expected: dict[int, tuple] = {r[0]: r for r in rows(spark_sql, batch)}
    project.write_model("u_part", model_sql({"unique_key": "id", "partition_by": "ds"}, f"select * from {batch}"))
    project.write_model("u_flat", model_sql({"unique_key": "id"}, f"select * from {batch}"))
    # upsert_lookback_days as text ('0'), as a config set from env_var() gives it
    project.write_model("u_bounded", model_sql(
        {"unique_key": "id", "partition_by": "ds", "upsert_date_key": "ds", "upsert_lookback_days": "0"},
        f"select * from {batch} where id != 3"))
    models = ["u_part", "u_flat", "u_bounded"]
    run(project, models)
    bounded_expected = {k: v for k, v in expected.items() if k != 3}

    # id 1 moves to a new partition, id 3 leaves its partition (which becomes empty),
    # id 2 changes in place, id 7 is new
    change = [(1, "a2", D(2020, 1, 4)), (2, "b2", D(2020, 1, 2)), (3, "c", D(2020, 1, 1)), (7, "g", D(2020, 1, 2))]
    spark_sql.execute(f"truncate table {batch}")
    spark_sql.insert_rows(batch, COLS, change)
    expected.update({r[0]: r for r in change})
    bounded_expected.update({r[0]: r for r in change if r[0] != 3})
    probe = SqlMetrics(spark_server.ui_url)
    mark = probe.mark()
    r2 = run(project, models)
    # u_bounded holds 3 partitions (2020-01-01 to 03); its bound is 2020-01-02 (the new
    # rows' min ds, lookback 0): no scan of it reads 2020-01-01, nor lists its files (the
    # bound is a literal, learnt from the staged rows first; one computed in the query
    # would prune only after Spark had listed every partition)
    bounded_scans = probe.reads_since(mark, project.schema, "u_bounded").scan_details
    assert bounded_scans and all(0 < scan.partitions <= 2 for scan in bounded_scans), [
        (scan.partitions, scan.desc) for scan in bounded_scans]
    assert all(scan.listed == scan.files for scan in bounded_scans), [
        (scan.listed, scan.files, scan.desc) for scan in bounded_scans]
    # touched: 2020-01-01 (id 1 left, id 3 arrived), 01-02 (ids 2, 7), 01-03 (id 3 left), 01-04 (id 1 arrived)
    assert action(r2, "u_part") == "upserted 4 rows on id: replaced 4 partitions, 1 emptied and dropped"
    assert action(r2, "u_flat") == "upserted 4 rows on id: rewrote the table"
    assert rows(spark_sql, project.relation("u_part")) == sorted(expected.values())
    assert rows(spark_sql, project.relation("u_flat")) == sorted(expected.values())
    assert [r[0] for r in spark_sql.query(f"show partitions {project.relation('u_part')}")] == [
        "ds=2020-01-01", "ds=2020-01-02", "ds=2020-01-04"]
    # upsert_date_key ds with lookback 0: only partitions from the new rows' min ds
    # (2020-01-02) on are searched for existing keys, so id 1's old row on 2020-01-01
    # stays: the documented price of bounding the scan
    assert action(r2, "u_bounded") == "upserted 3 rows on id: replaced 2 partitions"
    assert rows(spark_sql, project.relation("u_bounded")) == sorted(
        [*bounded_expected.values(), (1, "a", D(2020, 1, 1))])

    # run 3 dies just before its overwrite...
    change = [(4, "d2", D(2020, 1, 2)), (5, "e2", D(2020, 1, 2))]
    spark_sql.execute(f"truncate table {batch}")
    spark_sql.insert_rows(batch, COLS, change)
    expected.update({r[0]: r for r in change})
    r3 = run(project, ["u_part", "u_flat"], vars={"spark_incremental__fail_at": "before_overwrite"},
             expect_success=False)
    assert statuses(r3, ["u_part", "u_flat"]) == {"u_part": "error", "u_flat": "error"}
    assert leftovers(spark_sql, project) == ["u_flat__si_apply", "u_flat__si_stage", "u_part__si_apply", "u_part__si_stage"]
    # ... and as if it had died half-way through it: partition files already deleted
    spark_sql.execute(f"alter table {project.relation('u_part')} drop partition (ds = '2020-01-01')")
    spark_sql.execute(f"truncate table {project.relation('u_flat')}")

    # run 4 has no new rows: only the recovery can bring the lost rows back
    spark_sql.execute(f"truncate table {batch}")
    r4 = run(project, ["u_part", "u_flat"])
    assert said(r4, "u_part")[0] == "recovered: re-applied the interrupted overwrite of 2 partitions from u_part__si_apply"
    assert said(r4, "u_flat")[0] == "recovered: re-applied the interrupted overwrite of the whole table from u_flat__si_apply"
    assert action(r4, "u_part") == "upserted 0 rows on id: nothing to replace"
    assert rows(spark_sql, project.relation("u_part")) == sorted(expected.values())
    assert rows(spark_sql, project.relation("u_flat")) == sorted(expected.values())
    assert leftovers(spark_sql, project) == []


# ------------------------------------------------- the target's description
LISTED_TABLES = {
    # every type the listing spells one to one, names with a space, a colon, a comma and
    # a backquote, two partition columns and the dynamic overwrite option
    "listed_wide": "(`a b` string, n decimal(12,3), big bigint, small smallint, tiny tinyint, i int,"
                   " f float, dbl double, ok boolean, raw binary, ts timestamp, ntz timestamp_ntz,"
                   " day date, `we:ird, na``me` string) using parquet partitioned by (day, `we:ird, na``me`)"
                   " options ('partitionOverwriteMode' = 'dynamic')",
    "listed_plain": "(id int, v string) using parquet",
    # a nested type: the listing names it `array` only, so a statement describes it
    "listed_nested": "(id int, tags array<string>, kv map<string, int>) using parquet",
}


def test_the_listing_describes_a_table_as_describe_does(project: DbtProject, spark_sql: SparkSql) -> None:
    """_managed_listed_describe (dbt's listing of the schema, no statement) gives what
    _managed_describe (`describe table extended`) gives, or none where it cannot."""
    spark_sql.execute(f"create schema if not exists {project.schema}")
    for name, ddl in LISTED_TABLES.items():
        spark_sql.execute(f"create table {project.relation(name)} {ddl}")
    project.write_file("macros/listing_cases.sql", """
{% macro listing_cases(names) %}
  {%- for name in names -%}
    {%- set relation = adapter.get_relation(database=none, schema=target.schema, identifier=name) -%}
    {%- set listed = spark_incremental._managed_listed_describe(relation) -%}
    {%- set described = spark_incremental._managed_describe(relation) -%}
    {%- do spark_incremental._log('listing ' ~ name ~ ' | ' ~ tojson(listed) ~ ' | ' ~ tojson(described)) -%}
  {%- endfor -%}
{% endmacro %}
""")
    result = project.run("run-operation", "listing_cases", "--args", json.dumps({"names": list(LISTED_TABLES)}))
    got = {}
    for line in result.pkg_lines():
        if line.startswith(PREFIX + "listing "):
            name, listed, described = line[len(PREFIX) + 8:].split(" | ")
            got[name] = (json.loads(listed), json.loads(described))
    assert set(got) == set(LISTED_TABLES)
    wide, plain, nested = got["listed_wide"], got["listed_plain"], got["listed_nested"]
    assert wide[0] == wide[1]
    assert wide[0]["partition_by"] == ["day", "we:ird, na`me"] and wide[0]["dynamic_overwrite"] is True
    assert ["ntz", "timestamp_ntz"] in wide[0]["columns"] and ["n", "decimal(12,3)"] in wide[0]["columns"]
    assert plain[0] == plain[1] == {"columns": [["id", "int"], ["v", "string"]], "partition_by": [],
                                    "dynamic_overwrite": False}
    assert nested[0] is None and ["tags", "array<string>"] in nested[1]["columns"]


def test_an_upsert_describes_its_target_only_when_the_listing_cannot(
        project: DbtProject, spark_sql: SparkSql) -> None:
    """An incremental run takes the target's columns from dbt's listing (one statement
    fewer); after a pre-hook (which may have changed the table) it describes the table."""
    batch = project.relation("batch_src")
    spark_sql.create_table(batch, COLS, [(1, "a", D(2020, 1, 1)), (2, "b", D(2020, 1, 2))])
    config: dict[str, Any] = {"unique_key": "id", "partition_by": "ds"}
    project.write_model("u_listed", model_sql(config, f"select * from {batch}"))
    run(project, ["u_listed"])
    describe = f"describe table extended {project.relation('u_listed')}"

    def described(result: DbtResult) -> bool:
        return any(describe in line for line in result.debug_lines)

    expected = {1: (1, "a", D(2020, 1, 1)), 2: (2, "b", D(2020, 1, 2))}
    for hook, change in [(None, [(2, "b2", D(2020, 1, 3)), (3, "c", D(2020, 1, 2))]),
                         ("select 1", [(1, "a2", D(2020, 1, 2))])]:
        spark_sql.execute(f"truncate table {batch}")
        spark_sql.insert_rows(batch, COLS, change)
        expected.update({r[0]: r for r in change})
        if hook:
            project.write_model("u_listed", model_sql({**config, "pre_hook": hook}, f"select * from {batch}"))
        result = run(project, ["u_listed"])
        assert action(result, "u_listed").startswith(f"upserted {len(change)} row")
        assert described(result) == bool(hook), result.tail(20)
        assert rows(spark_sql, project.relation("u_listed")) == sorted(expected.values())


def test_a_table_rebuilt_after_the_listing_is_written_by_name(project: DbtProject, spark_sql: SparkSql) -> None:
    """Another run rebuilds the target with its columns in another order after this run's
    listing (the relation cache's limit): the upsert, which takes the description from
    the listing, still writes every value into its own column (`insert ... by name`)."""
    batch = project.relation("batch_src")
    cols = {"id": "int", "v": "string", "w": "string", "ds": "date"}
    spark_sql.create_table(batch, cols, [(1, "v1", "w1", D(2020, 1, 1)), (2, "v2", "w2", D(2020, 1, 2))])
    project.write_model("u_race", model_sql({"unique_key": "id", "partition_by": "ds"}, f"select * from {batch}"))
    run(project, ["u_race"])
    target = project.relation("u_race")
    spark_sql.execute(f"truncate table {batch}")
    spark_sql.insert_rows(batch, cols, [(2, "v2b", "w2b", D(2020, 1, 2)), (3, "v3", "w3", D(2020, 1, 2))])

    def rebuild_reordered(line: str) -> None:
        if "START sql managed_incremental model" in line and target in line:
            spark_sql.execute(f"create table {target}_reordered using parquet partitioned by (ds)"
                              f" options ('partitionOverwriteMode' = 'dynamic') as select id, w, v, ds from {target}")
            spark_sql.execute(f"drop table {target}")
            spark_sql.execute(f"alter table {target}_reordered rename to {target}")

    result = project.run("run", "--select", "u_race", on_line=rebuild_reordered)
    assert not any(f"describe table extended {target}" in line for line in result.debug_lines)
    assert rows(spark_sql, target, "id, v, w, ds") == [
        (1, "v1", "w1", D(2020, 1, 1)), (2, "v2b", "w2b", D(2020, 1, 2)), (3, "v3", "w3", D(2020, 1, 2))]


# ------------------------------------------------- incremental indicator + grace
BIG = 10 ** 30


def test_numeric_and_timestamp_indicators_with_grace(project: DbtProject, spark_sql: SparkSql) -> None:
    """AtScale's contract: read indicator > last value - grace, replace that range and
    upsert by key. The grace is subtracted exactly: on decimal(38,0) values near 1e30 a
    conversion through a float would move the lower bound by far more than 100."""
    loads = project.relation("loads_src")
    columns = {"id": "int", "v": "string", "load_id": "bigint"}
    spark_sql.create_table(loads, columns, [(1, "a", 1000), (2, "b", 1010), (3, "c", 1020)])
    derived = (f"select id, v, load_id, cast(load_id as decimal(38,0)) + cast('{BIG}'"
               f" as decimal(38,0)) as big, timestamp'2020-01-01 00:00:00' + make_interval(0, 0, 0, 0, 0,"
               f" cast(load_id as int), 0) as loaded_at from {loads}")
    for name, indicator, grace in [("ind_bigint", "load_id", 100), ("ind_decimal", "big", 100),
                                   ("ind_ts", "loaded_at", 6000)]:
        project.write_model(name, model_sql(
            {"mutability": {"type": "incremental_indicator", "type_params": {"indicator": indicator, "grace_period": grace}},
             "unique_key": "id"}, derived))
    models = ["ind_bigint", "ind_decimal", "ind_ts"]
    run(project, models)

    # id 1 is updated (new indicator value), id 4 lands late but inside the grace period,
    # id 5 lands later than the grace period allows (ignored, by contract)
    spark_sql.execute(f"insert overwrite table {loads} values (1, 'a2', 1030), (2, 'b', 1010), (3, 'c', 1020),"
                      f" (4, 'd', 1015), (5, 'e', 900)")
    r2 = run(project, models)
    assert action(r2, "ind_bigint") == ("replaced rows with load_id > 920 by 4 rows (upsert on id): rewrote the table;"
                                        " grace_period 100 before the high-water mark 1020")
    assert action(r2, "ind_decimal").startswith(f"replaced rows with big > {BIG + 920} by 4 rows")
    assert action(r2, "ind_ts").startswith("replaced rows with loaded_at > '2020-01-01 15:20:00' by 4 rows")
    want_ids = [(1, "a2"), (2, "b"), (3, "c"), (4, "d")]
    for name in models:
        got = [(r[0], r[1]) for r in rows(spark_sql, project.relation(name))]
        assert got == want_ids, name
        expected = rows(spark_sql, f"({derived} where id != 5) as x")
        assert rows(spark_sql, project.relation(name)) == expected, name
    assert state(spark_sql, project, "ind_bigint")["high_water_mark"] == "1030"
    s = state(spark_sql, project, "ind_decimal")
    assert (s["high_water_mark"], s["high_water_mark_type"]) == (str(BIG + 1030), "decimal(38,0)")
    assert state(spark_sql, project, "ind_ts")["high_water_mark"] == "2020-01-01 17:10:00"
    assert float(BIG + 1030) - 100 == float(BIG)    # what a float conversion would have done


# ------------------------------------------- full refresh, type change, safe swap
def test_full_refresh_type_change_and_rebuild_that_cannot_lose_the_table(project: DbtProject, spark_sql: SparkSql) -> None:
    src = project.relation("src")
    spark_sql.create_table(src, COLS, [(1, "a", D(2020, 1, 1)), (2, "b", D(2020, 1, 2)), (3, "bogus", D(2030, 1, 1))])
    table, appended = project.relation("m"), project.relation("m_append")
    project.write_model("m", model_sql({"mutability": {"type": "immutable"}}, f"select * from {src}"))
    project.write_model("m_append", model_sql(
        {"mutability": {"type": "append_only", "type_params": {"along": "ds"}}}, f"select * from {src}"))
    # no clock var here: a var that changes between runs costs dbt a full re-parse
    r1 = run(project, ["m", "m_append"])
    assert action(r1, "m") == "built once (3 rows)"
    assert state(spark_sql, project, "m_append")["high_water_mark"] == "2030-01-01"

    # the mutability type changes, so the model is rebuilt; that rebuild dies between its
    # two renames: the target is gone for a moment
    spark_sql.execute(f"insert into {src} values (4, 'd', date'2020-01-03')")
    project.write_model("m", model_sql({"mutability": {"type": "full_mutation"}}, f"select * from {src}"))
    r2 = run(project, ["m"], vars={"spark_incremental__fail_at": "after_rename_old"},
             expect_success=False)
    assert statuses(r2, ["m"]) == {"m": "error"}
    assert not spark_sql.relation_exists(table)
    assert leftovers(spark_sql, project) == ["m__si_new", "m__si_old"]
    spark_sql.execute(f"drop table {table}__si_new")    # as if it died before the new table was there

    # the next run restores the old table first, then rebuilds and says why
    r3 = run(project, ["m"])
    assert said(r3, "m") == [
        "recovered: m was missing; restored it from m__si_old (an earlier rebuild stopped after renaming it away)",
        "full refresh: mutability type changed from immutable to full_mutation (4 rows)",
    ]
    assert state(spark_sql, project, "m")["mutability_type"] == "full_mutation"
    assert rows(spark_sql, table) == rows(spark_sql, src)

    # a rebuild whose query fails leaves the old table readable; a --full-refresh of
    # the append_only model resets its high-water mark (the bogus 2030 row is gone)
    spark_sql.create_table(src, COLS, [(1, "a", D(2020, 1, 1)), (2, "b", D(2020, 1, 2)), (4, "d", D(2020, 1, 3))])
    before = rows(spark_sql, table)
    project.write_model("m", model_sql({"mutability": {"type": "full_mutation"}},
                                       f"select * from {src} where assert_true(id < 0) is null"))
    r4 = run(project, ["m", "m_append"], None, "--full-refresh", expect_success=False)
    assert statuses(r4, ["m", "m_append"]) == {"m": "error", "m_append": "success"}
    assert rows(spark_sql, table) == before
    assert action(r4, "m_append") == "full refresh: --full-refresh (3 rows)"
    assert state(spark_sql, project, "m_append")["high_water_mark"] == "2020-01-03"
    assert rows(spark_sql, appended) == rows(spark_sql, src)
    assert leftovers(spark_sql, project) == []


# ------------------------------------------------------------------- bad input
BAD_MODELS = {
    "bad_type": ({"mutability": {"type": "sometimes"}},
                 ["mutability.type = 'sometimes'", "Allowed: immutable, full_mutation, append_only, ds_append_only, incremental_indicator"]),
    "bad_no_along": ({"mutability": {"type": "append_only"}},
                     ["mutability.type_params.along is missing"]),
    "bad_along_column": ({"mutability": {"type": "append_only", "type_params": {"along": "event_day"}}},
                         ["mutability.type_params.along = 'event_day' is not a column of the model", "id, v, ds"]),
    "bad_cron_fields": ({"mutability": {"type": "full_mutation", "type_params": {"update_cron": "0 13 * *"}}},
                        ["update_cron = '0 13 * *' has 4 fields", "5 fields"]),
    "bad_cron_range": ({"mutability": {"type": "full_mutation", "type_params": {"update_cron": "61 * * * *"}}},
                       ["update_cron = '61 * * * *'", "minute field", "out of range 0-59"]),
    "bad_indicator": ({"mutability": {"type": "incremental_indicator", "type_params": {"indicator": "v"}}},
                      ["mutability.type_params.indicator = 'v' has type string",
                       "Allowed types: tinyint, smallint, int, bigint, decimal(p,0)"]),
    "bad_min_max": ({"mutability": {"type": "ds_append_only", "type_params": {"min": "2020-02-01", "max": "2020-01-01"}}},
                    ["mutability.type_params.min = '2020-02-01' is after mutability.type_params.max = '2020-01-01'"]),
    "bad_key": ({"unique_key": "nope"},
                ["unique_key = 'nope' is not a column of the model", "Allowed: one of its columns: id, v, ds"]),
    "bad_param": ({"mutability": {"type": "immutable", "type_params": {"along": "ds"}}},
                  ["mutability.type_params.along = ds is not allowed for type 'immutable'"]),
    "bad_skip": ({"unique_key": "id", "skip_without_new_events": "yes"},
                 ["skip_without_new_events = 'yes' (text) is not allowed: it must be true or false"
                  " (or the text 'true' / 'false', any case; default false)"]),
    "bad_lookback": ({"unique_key": "id", "upsert_date_key": "ds", "upsert_lookback_days": "-1"},
                     ["upsert_lookback_days = '-1' (text) is not allowed: it must be a whole number of days >= 0"]),
    # dbt's is_incremental(), left by a migration: always false here, so each run would
    # append the whole source again (no unique_key)
    "bad_dbt_is_incremental": ({}, ["`is_incremental ( )` (line 4) is dbt's is_incremental(), which is always false",
                                    "Use spark_incremental.is_incremental()"]),
    # is_incremental without parentheses: the macro object, always true in Jinja
    "bad_bare_is_incremental": ({}, ["`if is_incremental` (line 4) uses is_incremental without calling it",
                                     "Call it: spark_incremental.is_incremental()"]),
    "bad_bare_package_is_incremental": ({}, ["`not spark_incremental.is_incremental` (line 5) uses"
                                             " is_incremental without calling it"]),
    # the macro object kept in a variable: the condition on it is always true
    "bad_set_is_incremental": ({}, ["`= is_incremental` (line 4) uses is_incremental without calling it"]),
}
# the models' code after `select * from src` (default: nothing)
BAD_TAILS = {
    "bad_dbt_is_incremental": "{% if is_incremental ( ) %}where ds > (select max(ds) from {{ this }}){% endif %}",
    "bad_bare_is_incremental": "{% if is_incremental %}where ds > (select max(ds) from {{ this }}){% endif %}",
    "bad_bare_package_is_incremental": ("-- SQL text, not Jinja: if is_incremental\n"
                                        "{% if true and not spark_incremental.is_incremental %}where 1 = 0{% endif %}"),
    "bad_set_is_incremental": ("{% set incremental = is_incremental %}"
                               "{% if incremental %}where ds > (select max(ds) from {{ this }}){% endif %}"),
}
# the package's own call, dbt's in a Jinja comment, the bare name in SQL text, in a
# Jinja string and under a Jinja test, a comparison: no error
GOOD_TAIL = ("{# was: is_incremental() #}\n"
             "-- SQL text, not Jinja: if is_incremental\n"
             "{% set note = 'if not is_incremental' %}"
             "{% set known = is_incremental is defined and not is_incremental is none %}"
             "{% set same = note == is_incremental %}"
             "{% if spark_incremental.is_incremental() %}where ds > (select max(ds) from {{ this }}){% endif %}")


def test_bad_input_is_a_compile_error_and_writes_nothing(project: DbtProject, spark_sql: SparkSql) -> None:
    src = project.relation("src")
    spark_sql.create_table(src, COLS, [(1, "a", D(2020, 1, 1))])
    for name, (config, _) in BAD_MODELS.items():
        project.write_model(name, model_sql(config, f"select * from {src}\n{BAD_TAILS.get(name, '')}"))
    project.write_model("ok_is_incremental", model_sql({}, f"select * from {src}\n{GOOD_TAIL}"))
    result = run(project, [*BAD_MODELS, "ok_is_incremental"], expect_success=False)
    assert statuses(result, BAD_MODELS) == {name: "error" for name in BAD_MODELS}
    assert result.statuses["ok_is_incremental"] == "success", result.tail(20)
    text = result.text()
    for name, (_, fragments) in BAD_MODELS.items():
        errors = [line for line in result.lines if f"model '{name}'" in line]
        assert errors, f"no error naming model '{name}':\n{text[-3000:]}"
        for fragment in fragments:
            assert any(fragment in line for line in errors), f"{name}: {fragment!r} not in {errors}"
    # nothing written: no table, no staging table, no manifest row
    tables = {r[1] for r in spark_sql.query(f"show tables in {project.schema}")}
    assert tables & set(BAD_MODELS) == set()
    assert leftovers(spark_sql, project) == []
    if "spark_incremental_manifest_log" in tables:
        assert spark_sql.scalar(f"select count(*) from {project.relation('spark_incremental_manifest_log')}"
                                f" where model like 'bad%'") == 0


# ------------------------------------------------------------------------ cron
CRON_CASES = [
    # expression, after, next fire time
    ("0 * * * *", "2020-01-05 12:00:00", "2020-01-05 13:00:00"),
    ("0 * * * *", "2020-01-05 12:59:59", "2020-01-05 13:00:00"),
    ("*/4 * * * *", "2020-01-05 12:01:00", "2020-01-05 12:04:00"),
    ("1-30/10 * * * *", "2020-01-05 12:21:00", "2020-01-05 13:01:00"),
    ("0 13 * * *", "2020-01-05 13:00:00", "2020-01-06 13:00:00"),
    ("30 2 1,15 * *", "2020-01-02 00:00:00", "2020-01-15 02:30:00"),
    ("0 0 * * 7", "2020-01-06 00:00:00", "2020-01-12 00:00:00"),        # 7 = Sunday
    ("0 0 * * 0", "2020-01-06 00:00:00", "2020-01-12 00:00:00"),        # 0 = Sunday
    ("0 9 * * 1-5", "2020-01-10 09:00:00", "2020-01-13 09:00:00"),      # Friday -> Monday
    ("0 0 13 * 5", "2020-01-01 00:00:00", "2020-01-03 00:00:00"),       # day 13 OR a Friday
    ("0 0 29 2 *", "2020-03-01 00:00:00", "2024-02-29 00:00:00"),
    ("15 10 * 12 *", "2020-12-31 10:15:00", "2021-12-01 10:15:00"),
    ("@daily", "2020-01-05 00:00:00", "2020-01-06 00:00:00"),
]


def test_cron_next_fire_times(project: DbtProject) -> None:
    project.write_file("macros/cron_cases.sql", """
{% macro cron_cases(cases) %}
  {%- for expression, after, expected in cases -%}
    {%- set cron = spark_incremental._cron_parse(expression) -%}
    {%- set got = spark_incremental._cron_next(cron, spark_incremental._parse_ts(after)) -%}
    {%- do spark_incremental._log('cron ' ~ expression ~ ' | ' ~ after ~ ' | ' ~ spark_incremental._ts_text(got)) -%}
  {%- endfor -%}
{% endmacro %}
""")
    result = project.run("run-operation", "cron_cases", "--args", json.dumps({"cases": CRON_CASES}))
    got = [line[len(PREFIX) + 5:].split(" | ") for line in result.pkg_lines() if line.startswith(PREFIX + "cron ")]
    assert [tuple(g) for g in got] == CRON_CASES

"""The write layer under kills: a run stopped at each step of each table operation is
finished by the next run, and every table then equals what an uninterrupted run gives.

The operations (docs/design.md, "write"): the partition rewrite (stage, apply table,
overwrite; apply_table.sql) used by upserts, change replays and interval batches, and
the build-and-swap (swap_in.sql) used by rebuilds. `spark_incremental__fail_at` stops a
run at a named step, as a killed job would; every model that reaches that step in the
invocation stops there. The next run is the orchestrator's retry: the same command, the
same sources. The upsert reads only its batch table (this run's rows, like a
sessionisation model), so a write that a kill lost would stay lost.
"""

from __future__ import annotations

import datetime as dt

import pytest

from tests.harness.dbt import DbtProject, DbtResult
from tests.harness.sql import SparkSql, _sort_key
from tests.test_changes import SALES, SOURCES_YML, d
from tests.test_intervals import DAILY_EVENTS, EVENTS, events_rows
from tests.test_intervals import SOURCES_YML as INTERVAL_SOURCES_YML
from tests.test_managed_incremental import COLS, D, leftovers, model_sql, rows, said

NOW = "2024-01-04 07:00:00"  # the daily cron (06:00) has fired for 2024-01-03

FACTS = """{{ config(materialized='managed_incremental',
          mutability={'type': 'full_mutation', 'type_params': {'update_cron': '0 0 1 1 *'}},
          partition_by='date') }}

with

final as (
    select sale_id, product, amount, date
    from {{ source('shop', 'sales') }}
)

select * from final
"""

MODELS = ["upsert", "facts", "daily"]


def run(project: DbtProject, now: str, *extra: str, fail_at: str | None = None,
        changes: list[dict] | None = None) -> DbtResult:
    vars: dict = {"spark_incremental__now": now}
    if fail_at:
        vars["spark_incremental__fail_at"] = fail_at
    if changes:
        vars["spark_incremental__changes"] = changes
    return project.run("run", "--select", *MODELS, *extra, vars=vars, expect_success=fail_at is None)


def stopped(result: DbtResult, point: str) -> set[str]:
    """The models the run stopped (it stopped at `point`, and only there)."""
    messages = [line for line in result.lines if "stopped at '" in line]
    assert messages and all(f"stopped at '{point}'" in line for line in messages), result.tail(60)
    return {model for model in MODELS if result.statuses.get(model) == "error"}


@pytest.mark.cluster_core
@pytest.mark.slow  # CI runs this in its Spark 3.5 step only; make test runs it everywhere
def test_a_kill_at_each_step_is_finished_by_the_next_run(make_project, spark_sql: SparkSql) -> None:
    project = make_project()
    schema = project.schema
    project.write_model("write_layer/shop.yml", SOURCES_YML)
    project.write_model("write_layer/tracking.yml", INTERVAL_SOURCES_YML)
    batch = project.relation("batch_src")
    project.write_model("write_layer/upsert", model_sql({"unique_key": "id", "partition_by": "ds"},
                                                        f"select * from {batch}"))
    project.write_model("write_layer/facts", FACTS)
    project.write_model("write_layer/daily", DAILY_EVENTS)  # daily batches, monthly partitions
    upserted: dict[int, tuple] = {}

    def load_batch(new: list[tuple]) -> None:
        spark_sql.execute(f"truncate table {batch}")
        spark_sql.insert_rows(batch, COLS, new)
        upserted.update({r[0]: r for r in new})

    def check() -> None:
        assert rows(spark_sql, project.relation("upsert")) == sorted(upserted.values())
        assert rows(spark_sql, project.relation("facts")) == rows(
            spark_sql, f"{schema}.sales", "sale_id, product, amount, date")
        assert rows(spark_sql, project.relation("daily"), "ds, event_count, value_sum") == rows(spark_sql, (
            f"(select ds, count(*), sum(value) from {schema}.events where ds <= date'{day}' group by ds)"))

    spark_sql.create_table(batch, COLS, [])
    load_batch([(1, "a", D(2020, 1, 1)), (2, "b", D(2020, 1, 2))])
    sales = [(1, "P1", 10, d("2024-01-01")), (2, "P2", 20, d("2024-01-02"))]
    spark_sql.create_table(f"{schema}.sales", SALES, sales)
    spark_sql.create_table(f"{schema}.products", {"product": "string", "category": "string"}, [])
    spark_sql.create_table(f"{schema}.events", EVENTS, events_rows(
        {"2024-01-01": 2, "2024-01-02": 3, "2024-01-03": 4, "2024-01-04": 5, "2024-01-05": 6, "2024-01-06": 7}))
    day = "2024-01-03"
    run(project, NOW)
    check()

    # each step: (kill point, what the kill leaves, the models it stops)
    for point, left, models in [
        ("after_stage", ["upsert__si_stage"], {"upsert"}),
        ("before_overwrite", ["daily__si_apply", "facts__si_apply", "upsert__si_apply", "upsert__si_stage"],
         {"upsert", "facts", "daily"}),
        ("after_write", ["daily__si_apply", "facts__si_apply", "upsert__si_apply", "upsert__si_stage"],
         {"upsert", "facts", "daily"}),
    ]:
        # new upsert rows (one moves partition), a changed sale described, a new day due
        n = len(upserted)
        load_batch([(1, f"a{n}", D(2020, 1, n + 2)), (n + 1, "new", D(2020, 1, 2))])
        sales = [(i, p, a + 1 if i == 1 else a, dt) for i, p, a, dt in sales]
        spark_sql.execute(f"truncate table {schema}.sales")
        spark_sql.insert_rows(f"{schema}.sales", SALES, sales)
        changes = [{"table": "sales", "type": "UPDATE_ROWS", "scope": "sales.sale_id = 1"}]
        day = (d(day) + dt.timedelta(days=1)).isoformat()
        now = f"{(d(day) + dt.timedelta(days=1)).isoformat()} 07:00:00"  # day's interval is due

        killed = run(project, now, fail_at=point, changes=changes)
        assert stopped(killed, point) == models, killed.tail(60)
        assert leftovers(spark_sql, project) == left, point
        # stage and apply tables are written once and read back at once: no dictionary encoding
        for table in left:
            assert "parquet.enable.dictionary=false" in spark_sql.storage_properties(f"{schema}.{table}"), table
        retry = run(project, now, changes=changes)
        # every model the kill stopped says what its recovery did (a stage alone too)
        recovered = {model for model in models if any(line.startswith("recovered") for line in said(retry, model))}
        assert recovered == models, retry.tail(60)
        if point == "after_stage":
            assert any("dropped upsert__si_stage, the staged rows of an interrupted run" in line
                       for line in said(retry, "upsert")), retry.tail(60)
        assert leftovers(spark_sql, project) == [], point
        check()

    # the build-and-swap: a --full-refresh stopped before its swap, then after its first rename
    for point, left, message in [
        ("before_swap", ["daily__si_new", "facts__si_new", "upsert__si_new"], "before its swap"),
        ("after_rename_old", ["daily__si_new", "daily__si_old", "facts__si_new", "facts__si_old",
                              "upsert__si_new", "upsert__si_old"], "half-way through its swap"),
    ]:
        killed = run(project, now, "--full-refresh", fail_at=point)
        assert stopped(killed, point) == set(MODELS), killed.tail(60)
        assert leftovers(spark_sql, project) == left, point
        retry = run(project, now, "--full-refresh")
        for model in MODELS:
            assert any(message in line for line in said(retry, model)), retry.tail(60)
        assert leftovers(spark_sql, project) == [], point
        # a rebuild of the upsert reads only the batch table: its last batch
        upserted = {r[0]: r for r in rows(spark_sql, batch)}
        check()


def test_a_rewrite_of_more_partitions_than_one_metastore_filter_holds(
        make_project, spark_sql: SparkSql, spark_server) -> None:
    """A rewrite that touches 161 partitions: a change replay and two upserts (one date
    column; an integer and a date column), the null partition among them. Spark hands the
    metastore the partition predicate, and an embedded Derby metastore fails on one of
    somewhere between 110 and 150 terms ("Statement too complex"): a literal list of 161
    partitions stopped these writes, or, with the fallback conf, made Spark fetch every
    partition's metadata. The write layer names such a set by a range and a set test
    (_partition_set_predicate). Each table equals its rebuild, and no scan of a target
    lists a file it does not read."""
    from benchmarks.metrics import SqlMetrics

    project = make_project()
    schema = project.schema
    project.write_model("write_layer/shop.yml", SOURCES_YML)
    batch = project.relation("batch_sales")
    project.write_model("write_layer/facts", FACTS)
    project.write_model("write_layer/u_days", model_sql(
        {"unique_key": "sale_id", "partition_by": "date"}, f"select * from {batch}"))
    project.write_model("write_layer/u_two", model_sql(
        {"unique_key": "sale_id", "partition_by": ["sale_id", "date"]}, f"select * from {batch}"))
    models = ["facts", "u_days", "u_two"]
    first = d("2024-01-01")
    sales = [(i, f"P{i % 2}", i + 1, first + dt.timedelta(days=i)) for i in range(160)]
    sales.append((999, "P1", 999, None))  # a sale without a date: the null partition
    spark_sql.create_table(f"{schema}.sales", SALES, sales)
    spark_sql.create_table(f"{schema}.products", {"product": "string", "category": "string"}, [])
    spark_sql.create_table(batch, SALES, sales)
    project.run("run", "--select", *models, vars={"spark_incremental__now": NOW})

    # every amount changes: the replay's scope (a data column) touches all 161 partitions,
    # and each upsert gets 161 changed rows, one in each of its partitions
    sales = [(i, p, a + 1, day) for i, p, a, day in sales]
    for relation in (f"{schema}.sales", batch):
        spark_sql.execute(f"truncate table {relation}")
        spark_sql.insert_rows(relation, SALES, sales)
    probe = SqlMetrics(spark_server.ui_url)
    mark = probe.mark()
    log = getattr(spark_server, "log_path", None)
    log_mark = log.stat().st_size if log else 0
    result = project.run("run", "--select", *models, vars={
        "spark_incremental__now": NOW,
        "spark_incremental__changes": [{"table": "sales", "type": "UPDATE_ROWS", "scope": "sales.amount > 0"}]})
    # the harness's servers fall back to listing every partition when the metastore fails
    # a filter (spark.sql.hive.metastorePartitionPruningFallbackOnException, as the README
    # advises); a literal list of 161 partitions made Derby fail, and Spark said so here
    if log:
        with open(log, "rb") as handle:
            handle.seek(log_mark)
            fallbacks = handle.read().count(b"Falling back to fetching all partition metadata")
        assert fallbacks == 0, f"the metastore failed {fallbacks} partition filters of this run"
    assert said(result, "facts")[-1] == (
        "change descriptions: replaced scope (sales.amount > 0): 161 rows out, 161 in (161 partitions rewritten)")
    for model in ("u_days", "u_two"):
        assert said(result, model)[-1] == "upserted 161 rows on sale_id: replaced 161 partitions", said(result, model)
    for model in models:
        assert rows(spark_sql, project.relation(model), "sale_id, product, amount, date") == sorted(
            sales, key=_sort_key), model
        scans = probe.reads_since(mark, schema, model).scan_details
        assert scans and all(scan.listed == scan.files for scan in scans), [
            (scan.listed, scan.files, scan.desc[:120]) for scan in scans]

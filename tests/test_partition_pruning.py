"""With ``spark_incremental__events_partition_column`` set, every scan of the events table
the package makes filters on that column, so Spark prunes partitions.

Two proofs on a real events table partitioned by ``event_date`` (6 days), as a date and as
an int yyyymmdd:
* the plan: ``explain`` of the compiled SQL of every model that reads the events source
  shows ``PartitionFilters: [... event_date ...]`` on each scan of the events table;
* the metrics: during real ``dbt run``s (state 1, then a standard run), every scan of the
  events table in Spark's SQL metrics (models, hooks, macros alike) has partition filters
  on ``event_date`` and reads only the partitions of its window. (Spark 3.5's REST API
  shows no node descriptions, so there the metrics prove the partitions read and the
  plans prove the filters.)

A partition column that is not a column of the table stops the run with the table's
partition columns listed.
"""

from __future__ import annotations

import dataclasses
import json
import re
from typing import Any

import pytest

from benchmarks import generate
from benchmarks.generate import EventsSpec
from benchmarks.metrics import SqlMetrics

EVENTS_SOURCE = "source.spark_incremental.spark_incremental_events.events"
DAYS = 6


def _partition_filters(text: str) -> str:
    """The ``PartitionFilters: [...]`` list of one scan's description ('' when absent)."""
    m = re.search(r"PartitionFilters: \[(.*?)\](?:,|\n|$)", text)
    return m.group(1) if m else ""


def _pruned(desc: str) -> bool:
    """The scan filters the partition column: either Spark shows it in PartitionFilters, or
    the partitions were already pruned into an in-memory file index of at most 4 paths
    (what Spark does when the metastore cannot filter a DATE partition key and
    spark.sql.hive.metastorePartitionPruningFallbackOnException lists them instead)."""
    if generate.PARTITION_COLUMN in _partition_filters(desc):
        return True
    m = re.search(r"InMemoryFileIndex\((\d+) paths\)", desc)
    return m is not None and 0 < int(m.group(1)) <= 4


def _explain_scans(explain: str, relation: str) -> list[str]:
    """The sections of ``explain formatted`` output that describe scans of ``relation``."""
    sections = re.split(r"\n(?=\(\d+\) )", explain)
    pattern = re.compile(rf"^\(\d+\) Scan \w+ (?:\S+\.)?{re.escape(relation)}\s*$", re.I | re.M)
    return [s for s in sections if pattern.search(s.splitlines()[0] if s else "")]


# CI runs date; make test runs both
@pytest.fixture(params=["date", pytest.param("int", marks=pytest.mark.slow)])
def pruned(request: pytest.FixtureRequest, make_project: Any, spark_sql: Any, spark_server: Any) -> dict[str, Any]:
    """The events table partitioned by a date column, or by an int yyyymmdd column (a copy
    of the same rows; the package detects the form from the column's type)."""
    table = "events" if request.param == "date" else "events_int"
    project = make_project(
        spark_incremental__events_partition_column=generate.PARTITION_COLUMN,
        spark_incremental__events_table=table,
        spark_incremental__start_date="2024-01-01",
        spark_incremental__backfill_limit_days=2,
    )
    spec = EventsSpec(schema=project.schema, table="events", events_per_day=300,
                      files_per_day=4, long_sessions_from_day=2, long_session_share=0.05)
    generate.create_table(spark_sql, spec, replace=True)
    generate.load_days(spark_sql, spec, 0, DAYS - 1)
    if request.param == "int":
        others = ", ".join(name for name in generate.COLUMNS if name != generate.PARTITION_COLUMN)
        spark_sql.execute(
            f"create table {project.schema}.{table} using parquet partitioned by ({generate.PARTITION_COLUMN}) "
            f"as select {others}, cast(date_format({generate.PARTITION_COLUMN}, 'yyyyMMdd') as int) "
            f"as {generate.PARTITION_COLUMN} from {spec.relation}")
        spec = dataclasses.replace(spec, table=table)
    return {"project": project, "spec": spec,
            "probe": SqlMetrics(spark_server.ui_url),
            # Spark 3.5's SQL REST API gives a plan node no description (its Node has
            # nodeId, nodeName, wholeStageCodegenId, metrics; 4.x adds desc)
            "node_desc": not spark_server.spark_version.startswith(("2.", "3."))}


def _event_scans(probe: SqlMetrics, mark: int, spec: EventsSpec) -> list[Any]:
    return probe.reads_since(mark, spec.schema, spec.table).scan_details


def test_every_scan_of_the_events_table_filters_the_partition_column(
        pruned: dict[str, Any], spark_sql: Any) -> None:
    project, spec, probe = pruned["project"], pruned["spec"], pruned["probe"]

    # 1. the metrics of real runs: every scan the package made, models and hooks alike
    for run in ("first run (state 1: days 0-2)", "standard run (state 4: up to day 4)"):
        mark = probe.mark()
        project.run("run")
        scans = _event_scans(probe, mark, spec)
        assert scans, f"{run}: no scan of {spec.relation} in the Spark metrics"
        for scan in scans:
            # without node descriptions (Spark 3.5) the partitions read below prove the
            # pruning of real runs, and part 2 shows the filter in each plan
            assert _pruned(scan.desc) or not pruned["node_desc"], (
                f"{run}: a scan of the events table without a filter on "
                f"{generate.PARTITION_COLUMN} (execution {scan.execution_id}): {scan.desc}")
            # backfill_limit_days = 2 and a 6 h lookback: no window spans more than 4 days
            assert 0 < scan.partitions <= 4 < DAYS, (
                f"{run}: read {scan.partitions} of {DAYS} partitions: {scan.desc}")

    # 2. the plans: explain the compiled SQL of each model that reads the events source
    manifest = json.loads(project.read_file("target/manifest.json"))
    readers = sorted(
        node["name"] for node in manifest["nodes"].values()
        if node["resource_type"] == "model"
        and EVENTS_SOURCE in node.get("depends_on", {}).get("nodes", [])
    )
    assert {"spark_incremental_base_events_in_window", "spark_incremental_base_events_this_run"} <= set(readers), readers
    result = project.run("compile", "--select", *readers)
    compiled = {r.node.name: r.node.compiled_code for r in result.result.results}
    for name in readers:
        assert compiled.get(name), f"{name}: nothing compiled"
        if name != "spark_incremental_base_events_in_window" and spec.relation not in compiled[name]:
            continue  # events_this_run goes back to the events table only for sessions begun earlier
        spark_sql.reconnect()  # a fresh session: no cached listing of tables dbt rewrote
        explain = "\n".join(str(row[0]) for row in spark_sql.query(f"explain formatted {compiled[name]}"))
        scans = _explain_scans(explain, spec.relation)
        assert scans, f"{name}: its plan has no scan of {spec.relation}:\n{explain}"
        for section in scans:
            assert _pruned(section), (
                f"{name}: a scan of {spec.relation} without PartitionFilters on "
                f"{generate.PARTITION_COLUMN}:\n{section}")

    # 3. a partition column that is not a column of the table: the message lists the
    # table's partition columns (the ones it could name), before any SQL of the run
    failed = project.run("run", vars={"spark_incremental__events_partition_column": "event_day"},
                         expect_success=False)
    text = failed.text() + repr(failed.exception)
    want = (f"spark_incremental__events_partition_column = 'event_day' is not a column of {spec.relation}."
            f" Its partition columns: {generate.PARTITION_COLUMN}. Set spark_incremental__events_partition_column"
            f" to the partition column that holds the UTC date of the session timestamp (of"
            f" {generate.PARTITION_COLUMN}:")
    assert want in text, failed.tail(20)

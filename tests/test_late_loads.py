"""A run with no newer event skips its work only when nothing arrived that its standard
window would read (issue 13, item 6): late loads of older sessions inside the lookback
window are processed by the next run, and the tables equal one full run."""

from __future__ import annotations

from typing import Callable

import pytest

import tests.generator as gen
from tests.harness.dbt import DbtProject
from tests.harness.sql import SparkSql
from tests.test_sessions import _event, _events_table

L1, L2 = "2021-01-02 00:00:00", "2021-01-02 00:30:00"
FIRST_LOAD = [
    ("a1", "a", "page_view", "2021-01-01 10:00:00"),
    ("a2", "a", "page_view", "2021-01-01 10:05:00"),
    ("b1", "b", "page_view", "2021-01-01 20:00:00"),
    ("b2", "b", "page_ping", "2021-01-01 20:03:00"),
]
# loaded half an hour later: a whole session and the end of session a, both older than the
# models' last_success (20:03) but inside the 6-hour lookback; nothing newer arrives
LATE_LOAD = [
    ("l1", "late", "page_view", "2021-01-01 18:00:00"),
    ("l2", "late", "page_view", "2021-01-01 18:04:00"),
    ("b3", "b", "page_view", "2021-01-01 20:01:00"),
]
# loaded an hour later, newer than every event, and dropped by the pipeline: a later copy of
# b2 (deduplicated) and an event without a session id (filtered). The run after them
# processes once (b2's copy passes the window's filter), then nothing is new again
DROPPED = [
    ("b2", "b", "page_ping", "2021-01-01 21:05:00"),
    ("x1", None, "page_view", "2021-01-01 21:10:00"),
]
L3 = "2021-01-02 01:30:00"
DERIVED = ("sessions", "page_views", "spark_incremental_base_sessions_lifecycle_manifest")
VARS = {"spark_incremental__start_date": "2021-01-01", "spark_incremental__lookback_window_hours": 6}


def _load(spark_sql: SparkSql, project: DbtProject, loaded: str, events: list[tuple]) -> None:
    spark_sql.insert_rows(_events_table(project), gen.EVENT_COLUMNS, [_event(*e, loaded) for e in events])


def _tables(spark_sql: SparkSql, project: DbtProject) -> dict[str, list[tuple]]:
    return {name: spark_sql.table_rows(project.relation(name)) for name in DERIVED}


_FULL_RUN: dict[str, dict[str, list[tuple]]] = {}


def _one_run(make_project: Callable[..., DbtProject], spark_sql: SparkSql,
             loads: list[tuple[str, list[tuple]]]) -> dict[str, list[tuple]]:
    project = make_project(**VARS)
    spark_sql.create_table(_events_table(project), gen.EVENT_COLUMNS, [])
    for loaded, events in loads:
        _load(spark_sql, project, loaded, events)
    project.run("run", vars={"spark_incremental__now": loads[-1][0]})
    return _tables(spark_sql, project)


@pytest.fixture
def full_run(make_project: Callable[..., DbtProject], spark_sql: SparkSql) -> dict[str, dict[str, list[tuple]]]:
    """The derived tables of one run over every event up to the late load, and up to the
    dropped rows (computed once per session)."""
    if not _FULL_RUN:
        _FULL_RUN["late"] = _one_run(make_project, spark_sql, [(L1, FIRST_LOAD), (L2, LATE_LOAD)])
        _FULL_RUN["dropped"] = _one_run(make_project, spark_sql, [(L1, FIRST_LOAD), (L2, LATE_LOAD), (L3, DROPPED)])
    return _FULL_RUN


# CI runs None here and load_tstamp in its Spark 3.5 step; make test runs both
@pytest.mark.parametrize("load_timestamp", [pytest.param("load_tstamp", marks=pytest.mark.slow), None])
def test_late_loads_without_newer_events_are_processed(
    make_project: Callable[..., DbtProject], spark_sql: SparkSql, full_run: dict[str, dict[str, list[tuple]]],
    load_timestamp: str | None
) -> None:
    project = make_project(**VARS, spark_incremental__load_timestamp=load_timestamp)
    spark_sql.create_table(_events_table(project), gen.EVENT_COLUMNS, [])
    _load(spark_sql, project, L1, FIRST_LOAD)
    first = project.run("run", vars={"spark_incremental__now": L1})
    if load_timestamp:
        assert "spark_incremental: manifest: load watermark = '2021-01-02 00:00:00.000000'" in first.pkg_lines()

    _load(spark_sql, project, L2, LATE_LOAD)
    late = project.run("run", vars={"spark_incremental__now": L2})
    rule = next(line for line in late.pkg_lines() if line.startswith("spark_incremental: no event after"))
    if load_timestamp:
        assert "events loaded after the load watermark '2021-01-02 00:00:00.000000'" in rule
    else:
        assert "the events table has no load timestamp" in rule
    assert _tables(spark_sql, project) == full_run["late"]

    idle = project.run("run", vars={"spark_incremental__now": L2})
    rule = next(line for line in idle.pkg_lines() if line.startswith("spark_incremental: no event after"))
    if load_timestamp:
        assert "nothing loaded into the lookback window since the load watermark" in rule
        assert "spark_incremental: manifest: no event arrived since the last run; nothing to record" in idle.pkg_lines()
    else:  # no way to tell: the lookback window is processed again, and changes nothing
        assert "the lookback window is processed again" in rule
    assert _tables(spark_sql, project) == full_run["late"]

    # newest rows that the pipeline drops: processed once, then nothing new (with a load
    # timestamp) or the no-load-timestamp rule, never a standard run again
    _load(spark_sql, project, L3, DROPPED)
    project.run("run", vars={"spark_incremental__now": L3})
    assert _tables(spark_sql, project) == full_run["dropped"]
    after = project.run("run", vars={"spark_incremental__now": L3})
    rule = next(line for line in after.pkg_lines() if line.startswith("spark_incremental: no event after"))
    assert rule.startswith("spark_incremental: no event after '2021-01-01 21:05:00'"), rule
    assert ("nothing loaded into the lookback window since the load watermark" if load_timestamp
            else "the lookback window is processed again") in rule
    assert _tables(spark_sql, project) == full_run["dropped"]

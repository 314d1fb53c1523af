"""Restating a date range of the event pipeline (issue 19, part 2).

``spark_incremental__restate: {start, end}`` (an entry without a model) reprocesses every
session with events in the range through the base chain and every tracked model, and
moves no model's last_success. On the generator's data (test_rebuilds' setup: every event
in the table, ``now`` moved forward): after incremental runs, restating a range with no
events changes no row; bad ranges stop the run before anything is written; a day of
``sessions`` and ``page_views`` overwritten with wrong values is repaired by restating
that day, and every table then equals one run over all the data (sorted rows, every
column).
"""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any, Callable

from tests import generator as gen
from tests.harness.dbt import DbtProject
from tests.harness.sql import SparkSql
from tests.test_rebuilds import (
    FINAL_NOW, TABLES, _assert_equals_one_full_run, _contents, _line, _now, _project, _rows, _tracked_progress,
    _two_runs,
)

RESTATE = "spark_incremental__restate"
JSON_PREFIX = "spark_incremental plan json: "
DAY = "2021-01-03"
# every column of every table, quarantined_at too: a restatement that changes nothing
# rewrites nothing
ALL_COLUMNS: dict[str, list[str]] = {name: [] for name in TABLES}


def _log_rows(spark_sql: SparkSql, project: DbtProject) -> int:
    relation = project.relation("spark_incremental_manifest_log")
    spark_sql.execute(f"refresh table {relation}")
    return spark_sql.scalar(f"select count(*) from {relation}")


def _managed_state(spark_sql: SparkSql, project: DbtProject) -> dict[str, tuple]:
    relation = project.relation("spark_incremental_manifest")
    rows = spark_sql.query(f"select model, high_water_mark, mutability_type from {relation}"
                           " where high_water_mark is not null or mutability_type is not null")
    return {row[0]: tuple(row[1:]) for row in rows}


def _empty_range(rows: list[tuple]) -> tuple[str, str]:
    """The longest stretch between two consecutive events, less a second at each end."""
    collected = list(gen.EVENT_COLUMNS).index("collector_tstamp")
    stamps = sorted({row[collected] for row in rows})
    before, after = max(zip(stamps, stamps[1:]), key=lambda pair: pair[1] - pair[0])
    assert after - before > timedelta(minutes=5), (before, after)
    start, end = before + timedelta(seconds=1), after - timedelta(seconds=1)
    return start.strftime("%Y-%m-%d %H:%M:%S"), end.strftime("%Y-%m-%d %H:%M:%S")


def _corrupt_day(spark_sql: SparkSql, project: DbtProject, name: str, partition: str,
                 wrong: dict[str, str], keep: str = "true") -> None:
    """Overwrite one day's partition of a derived table with wrong values (and rows dropped)."""
    relation = project.relation(name)
    spark_sql.execute(f"refresh table {relation}")
    columns = [row[0] for row in spark_sql.query(f"describe {relation}")
               if row[0] and not row[0].startswith("#")]
    columns = list(dict.fromkeys(c for c in columns if c != partition))
    select = ", ".join(f"{wrong[c]} as {c}" if c in wrong else c for c in columns)
    # Spark does not overwrite a table it reads in the same statement: stage the rows first
    staged = f"{relation}__corrupt"
    spark_sql.execute(f"create table {staged} using parquet as "
                      f"select {select} from {relation} where {partition} = '{DAY}' and {keep}")
    spark_sql.execute(f"insert overwrite table {relation} partition ({partition} = '{DAY}') select * from {staged}")
    spark_sql.execute(f"drop table {staged}")


def test_restating_a_range_repairs_it_and_moves_no_last_success(
    make_project: Callable[..., DbtProject], spark_sql: SparkSql
) -> None:
    rows = _rows()
    project = _project(make_project, spark_sql)
    _two_runs(project)
    project.run("run", vars=_now(FINAL_NOW))
    progress = _tracked_progress(spark_sql, project)
    assert set(progress) == {"sessions", "page_views"}
    managed = _managed_state(spark_sql, project)
    _assert_equals_one_full_run(make_project, spark_sql, project)
    before = _contents(spark_sql, project, ALL_COLUMNS)

    # 1. a range with no events: nothing changes, no last_success moves
    start, end = _empty_range(rows)
    # the plan preview says what the restatement reprocesses: the range, for the whole chain
    preview = project.run("run-operation", "spark_incremental.plan",
                          vars={**_now(FINAL_NOW), RESTATE: {"start": start, "end": end},
                                "spark_incremental__plan_format": "json"})
    shown = json.loads(next(line.split(JSON_PREFIX, 1)[1] for line in preview.lines if JSON_PREFIX in line))
    assert shown["restate"] == {"start": start, "end": end}, shown
    limits = {e["model"]: e for e in shown["models"]}["spark_incremental_base_new_event_limits"]
    assert (limits["state"], limits["lower_limit"], limits["upper_limit"]) == (5, start, end), limits
    assert f"state 5: events '{start}' to '{end}' (reprocessing sessions" in limits["detail"], limits
    result = project.run("run", vars={**_now(FINAL_NOW), RESTATE: {"start": start, "end": end}})
    _line(result, f"[restate] reprocessing sessions with events between '{start}' and '{end}'")
    _line(result, "manifest: restatement of", "no progress recorded")
    assert _contents(spark_sql, project, ALL_COLUMNS) == before
    assert _tracked_progress(spark_sql, project) == progress

    # 2. bad input stops in on-run-start, before anything is written (not even the lock)
    log_rows = _log_rows(spark_sql, project)
    bad: list[tuple[Any, str]] = [
        # the bad field and its value first, then what restate takes
        ({"start": "2021-01-04", "end": "2021-01-03"},
         "is not allowed: end '2021-01-03' is not after start '2021-01-04' (a model's intervals are restated"
         " in [start, end), the events in [start, end]); the value must be {model: name"),
        ("{start: '2021-13-01'}", "spark_incremental__restate = {start: '2021-13-01'} (text) is not allowed:"
         " start '2021-13-01' is not a date or timestamp: use a date 'YYYY-MM-DD' or a timestamp"
         " 'YYYY-MM-DD HH:MM:SS' (UTC); the value must be {model: name"),
        ({"model": "sessions", "start": "2021-01-01", "end": "2021-13-40"},
         "is not allowed: end '2021-13-40' is not a date or timestamp: use a date 'YYYY-MM-DD'"),
        ([{"model": "sessions", "start": "2021-01-01"}, {"start": "2021-01-04", "end": "2021-01-04"}],
         # text, not list: the harness passes this var by its environment variable
         "is not allowed: entry 2: end '2021-01-04' is not after start '2021-01-04'"),
        ({"start": "2020-06-01", "end": "2020-12-31"},
         "the range ends at or before spark_incremental__start_date '2021-01-01 00:00:00'"),
        ({"start": "2021-01-09"}, "the range starts at or after the latest processed data"),
        ([{"start": "2021-01-02", "end": "2021-01-03"}, {"start": "2021-01-04", "end": "2021-01-05"}],
         "has 2 entries without a model"),
    ]
    for value, message in bad:
        failed = project.run("run", vars={**_now(FINAL_NOW), RESTATE: value}, expect_success=False)
        assert message in failed.text() + repr(failed.exception), (value, failed.tail(20))
        assert "spark_incremental_base_new_event_limits" not in failed.statuses, failed.statuses
    assert _log_rows(spark_sql, project) == log_rows
    assert _contents(spark_sql, project, ALL_COLUMNS) == before

    # 3. one day of two derived tables goes bad; restating that day (the var as text, as
    # from env_var) repairs it: every table equals one full run, no last_success moves
    _corrupt_day(spark_sql, project, "sessions", "start_date",
                 {"event_count": "event_count + 1000", "landing_page_url": "'/corrupt'"})
    _corrupt_day(spark_sql, project, "page_views", "page_view_date",
                 {"seconds_to_next_page_view": "-1"}, keep="page_view_in_session_index % 2 = 1")
    assert _contents(spark_sql, project, ALL_COLUMNS) != before
    result = project.run("run", vars={**_now(FINAL_NOW), RESTATE: f"{{start: '{DAY}', end: '2021-01-04'}}"})
    _line(result, f"[restate] reprocessing sessions with events between '{DAY} 00:00:00' and '2021-01-04 00:00:00'")
    assert _contents(spark_sql, project, ALL_COLUMNS) == before
    _assert_equals_one_full_run(make_project, spark_sql, project)
    assert _tracked_progress(spark_sql, project) == progress
    assert _managed_state(spark_sql, project) == managed

    # the next run is a standard one with nothing new (the load watermark did not move)
    result = project.run("run", vars=_now(FINAL_NOW + timedelta(hours=1)))
    _line(result, "[state 4] standard incremental run")
    _line(result, "no event after")
    assert _tracked_progress(spark_sql, project) == progress
    assert _contents(spark_sql, project, ALL_COLUMNS) == before

"""A catch-up across a gap in the events (issue 17): a window that holds no new event
while newer events exist costs no run. The backfill_limit_days then count from the first
event past the gap (get_run_limits, calculate_run_limits' first_event).

The generator's events (tests/generator.py), with its outage widened to ~8.5 days (every
event after it moved 6 days later) and start_date 6 days before the first event, loaded
at once into an events table partitioned by collector_date, are caught up with
backfill_limit_days = 2: the runs are those the non-empty data needs (counted below from
the events), and the derived tables then equal those of one full run (every row, every
column).
"""

from __future__ import annotations

import dataclasses
import time
from datetime import datetime, timedelta
from typing import Any, Callable

import pytest

from benchmarks.metrics import SqlMetrics
from tests import generator as gen
from tests.harness.dbt import DbtProject
from tests.harness.sql import SparkSql
from tests.test_sessions import BASE_VARS, _assert_consistent, _create_events, _window

SHIFT = timedelta(days=6)  # the outage grows from 2.5 to 8.5 days, > backfill_limit_days
START_DATE = gen.START_DATE - SHIFT  # 6 days without events before the first one
BACKFILL = timedelta(days=gen.BACKFILL_LIMIT_DAYS)
NOW = gen.LAST_EVENT + SHIFT + timedelta(hours=1)
COMPARED = ["sessions", "page_views", "spark_incremental_base_quarantined_sessions"]


def _gapped_events() -> list[gen.Event]:
    def shifted(e: gen.Event) -> gen.Event:
        if e.collector_tstamp < gen.GAP_END:
            return e
        return dataclasses.replace(
            e, collector_tstamp=e.collector_tstamp + SHIFT, load_tstamp=e.load_tstamp + SHIFT,
            dvce_created_tstamp=e.dvce_created_tstamp + SHIFT if e.dvce_created_tstamp else None,
            dvce_sent_tstamp=e.dvce_sent_tstamp + SHIFT if e.dvce_sent_tstamp else None)
    return [shifted(e) for e in gen.generate().events]


def _window_stamps(events: list[gen.Event]) -> list[datetime]:
    """The session timestamps of the events a window keeps (the filters of
    test_sessions.expected_sessions; duplicates and events past their session's cap of
    max_session_days included, which the pipeline drops later): a run's last_success is
    the newest of its window."""
    allowed = timedelta(days=gen.DAYS_LATE_ALLOWED)
    return sorted(e.collector_tstamp for e in events
                  if e.domain_sessionid is not None and e.app_id in gen.APP_IDS
                  and e.dvce_sent_tstamp is not None and e.dvce_created_tstamp is not None
                  and e.dvce_sent_tstamp <= e.dvce_created_tstamp + allowed)


def catch_up_runs(events: list[gen.Event], skip_gaps: bool) -> int:
    """The runs a catch-up from START_DATE takes to reach the last event a window keeps:
    each run's window ends backfill_limit_days after its start (last_success), or,
    skipping gaps, after the first event past a window without any; last_success becomes
    the newest event the window keeps, or the window's end when it holds none."""
    every = sorted(e.collector_tstamp for e in events)
    kept = _window_stamps(events)
    last, runs = None, 0
    while last != kept[-1]:
        since = START_DATE if last is None else last
        upper = since + BACKFILL
        if skip_gaps and not any(since < t <= upper for t in every):
            upper = min(t for t in every if t > upper) + BACKFILL
        inside = [t for t in kept if since < t <= upper]
        last = max(inside) if inside else upper
        runs += 1
    return runs


@pytest.mark.slow  # CI: test_run_limits.py::test_data_gap_is_crossed crosses a gap in one run; make test runs this too
def test_catch_up_skips_gaps_and_equals_one_full_run(
    make_project: Callable[..., DbtProject], spark_sql: SparkSql, spark_server: Any
) -> None:
    events = _gapped_events()
    rows = [e.row() for e in events]
    partitioned = {"spark_incremental__start_date": START_DATE.strftime("%Y-%m-%d"),
                   "spark_incremental__events_partition_column": "collector_date",
                   "spark_incremental__now": NOW.strftime("%Y-%m-%d %H:%M:%S")}

    incremental = make_project(**{**BASE_VARS, **partitioned})
    spark_sql.create_table(incremental.relation("events"), gen.EVENT_COLUMNS, rows,
                           partitioned_by=["collector_date"])
    probe = SqlMetrics(spark_server.ui_url)
    started = time.monotonic()
    windows, gap_lines, outage_scans = [], [], []
    for _ in range(20):
        mark = probe.mark()
        result = incremental.run("run")
        if any("nothing to process" in line for line in result.pkg_lines()):
            break  # caught up: a run with nothing new
        windows.append(_window(result))
        gap_lines += [line for line in result.pkg_lines() if "(a gap of " in line]
        if any("[state 4]" in line and "(a gap of " in line for line in result.pkg_lines()):
            outage_scans = probe.reads_since(mark, incremental.schema, "events").scan_details
    catch_up_s = time.monotonic() - started
    needed, without_skipping = catch_up_runs(events, True), catch_up_runs(events, False)
    print(f"\ngap catch-up: {len(windows)} runs in {catch_up_s:.0f} s (the data needs {needed};"
          f" {without_skipping} without skipping gaps); windows: {windows}")
    assert len(windows) == needed < without_skipping
    first_event = min(e.collector_tstamp for e in events)
    after_outage = min(e.collector_tstamp for e in events if e.collector_tstamp >= gen.GAP_END + SHIFT)
    assert windows[0] == (f"'{START_DATE:%Y-%m-%d %H:%M:%S}' and '{first_event + BACKFILL:%Y-%m-%d %H:%M:%S}'")
    assert len(gap_lines) == 2, gap_lines  # the start, and the outage
    assert gap_lines[0] == (
        "spark_incremental: [state 1] no data in manifest, processing data from start_date; no event from"
        f" '{START_DATE:%Y-%m-%d %H:%M:%S}' to '{first_event:%Y-%m-%d %H:%M:%S}' (a gap of 6 d 1 h): skipped,"
        " backfill_limit_days counted from the first event after it")
    assert gap_lines[1].startswith("spark_incremental: [state 4] standard incremental run; no event from '"), gap_lines[1]
    assert f"to '{after_outage:%Y-%m-%d %H:%M:%S}' (a gap of " in gap_lines[1], gap_lines[1]
    # the run that crossed the outage, its scans of the events table in order: the
    # nothing-new rule's one query of two limit-1 parts (in the window: no partition, a
    # scan Spark may leave out of its plan; past it: the 5 days after the outage), the
    # first event past the gap (min() over 1 partition, the first day after it) and the
    # window (the day of its lower limit before the outage, and its 3 days after the gap;
    # the gap has no partition). Its lower limit is last_success - lookback, and
    # last_success the newest event the previous window read (a bot's, dropped later):
    # the run before it ended in the outage's first day, so this run crosses it at once
    assert [s.partitions for s in outage_scans if s.partitions > 0] == [5, 1, 4], outage_scans
    assert len({s.execution_id for s in outage_scans[:-2]}) == 1, outage_scans  # the probe: one statement

    # reference: one full run over the same events
    full = make_project(**{**BASE_VARS, **partitioned, "spark_incremental__backfill_limit_days": 60})
    spark_sql.create_table(full.relation("events"), gen.EVENT_COLUMNS, rows, partitioned_by=["collector_date"])
    assert _window(full.run("run")) == f"'{START_DATE:%Y-%m-%d %H:%M:%S}' and '{NOW:%Y-%m-%d %H:%M:%S}'"

    for name in COMPARED:
        for project in (incremental, full):
            spark_sql.execute(f"refresh table {project.relation(name)}")
        inc, ref = spark_sql.table_rows(incremental.relation(name)), spark_sql.table_rows(full.relation(name))
        assert ref, name
        assert inc == ref, f"{name}: the catch-up differs from one full run"
    for project in (incremental, full):
        _assert_consistent(spark_sql, project)


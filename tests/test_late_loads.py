"""A run with no newer event skips its work only when nothing arrived that its standard
window would read (issue 13, item 6): late loads of older sessions inside the lookback
window are processed by the next run, and the tables equal one full run."""

from __future__ import annotations

from datetime import datetime, timedelta
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


# A session's user is the user of its earliest event that has one, as one run over all the
# data takes it, also when that event is loaded after the session was processed. Run 1
# processes up to 16:07; run 2's window starts 6 hours before, at 10:07.
U1, U2 = "2021-01-02 00:00:00", "2021-01-02 00:30:00"
USERS_FIRST = [
    ("s1", "s", None, "2021-01-01 10:00:00"),
    ("s2", "s", "u-b", "2021-01-01 10:10:00"),
    ("s3", "s", None, "2021-01-01 10:20:00"),
    ("t1", "t", "u-x", "2021-01-01 11:00:00"),
    ("t2", "t", "u-x", "2021-01-01 11:05:00"),
    ("v1", "v", "u-m", "2021-01-01 12:00:00"),
    ("p1", "p", "u-p", "2021-01-01 10:00:00"),
    ("p2", "p", None, "2021-01-01 10:30:00"),
    ("z1", "z", "u-z", "2021-01-01 16:07:00"),
]
USERS_LATE = [
    ("s4", "s", "u-a", "2021-01-01 10:08:00"),  # after s's start, before its user's event: u-a
    ("t0", "t", "u-w", "2021-01-01 10:59:00"),  # before t's start: u-w
    ("v2", "v", "u-c", "2021-01-01 12:00:00"),  # the same second as v's user: the smaller, u-c
    ("p3", "p", "u-o", "2021-01-01 10:20:00"),  # after p's user's event (outside the window): u-p
]
LIFECYCLE = "spark_incremental_base_sessions_lifecycle_manifest"


def _load_users(spark_sql: SparkSql, project: DbtProject, loaded: str, events: list[tuple]) -> None:
    rows = []
    for event_id, session, user, collected in events:
        ts = datetime.fromisoformat(collected)
        rows.append(gen.Event(event_id, "website", "page_view", session, user, "/p/" + event_id, ts,
                              ts - timedelta(seconds=2), ts - timedelta(seconds=1),
                              datetime.fromisoformat(loaded)).row())
    spark_sql.insert_rows(_events_table(project), gen.EVENT_COLUMNS, rows)


def _users(spark_sql: SparkSql, project: DbtProject) -> dict[str, tuple]:
    spark_sql.execute(f"refresh table {project.relation(LIFECYCLE)}")
    return {row[0]: (row[1], str(row[2])[11:19] if row[2] else None) for row in spark_sql.query(
        f"select session_identifier, user_identifier, user_tstamp from {project.relation(LIFECYCLE)}")}


def _users_pipeline(make_project: Callable[..., DbtProject], spark_sql: SparkSql) -> DbtProject:
    project = make_project(**VARS)
    spark_sql.create_table(_events_table(project), gen.EVENT_COLUMNS, [])
    _load_users(spark_sql, project, U1, USERS_FIRST)
    project.run("run", vars={"spark_incremental__now": U1})
    _load_users(spark_sql, project, U2, USERS_LATE)
    return project


def test_a_late_event_before_the_users_event_gives_the_session_its_user(
    make_project: Callable[..., DbtProject], spark_sql: SparkSql
) -> None:
    full = make_project(**VARS)
    spark_sql.create_table(_events_table(full), gen.EVENT_COLUMNS, [])
    _load_users(spark_sql, full, U1, USERS_FIRST)
    _load_users(spark_sql, full, U2, USERS_LATE)
    full.run("run", vars={"spark_incremental__now": U2})
    expected = {"s": ("u-a", "10:08:00"), "t": ("u-w", "10:59:00"), "v": ("u-c", "12:00:00"),
                "p": ("u-p", "10:00:00"), "z": ("u-z", "16:07:00")}
    assert _users(spark_sql, full) == expected

    project = _users_pipeline(make_project, spark_sql)
    second = project.run("run", vars={"spark_incremental__now": U2})
    assert "processing data between '2021-01-01 10:07:00'" in "\n".join(second.pkg_lines())
    assert _users(spark_sql, project) == expected
    assert _tables(spark_sql, project) == _tables(spark_sql, full)

    # a lifecycle manifest written before user_tstamp existed gains the column in its next
    # run; its rows count from their start, which a row that keeps its user records as its
    # user_tstamp: a late event before the start still gives the user (t, v), one after it
    # keeps the recorded user (s: u-b, where one full run says u-a)
    legacy = _users_pipeline(make_project, spark_sql)
    relation = legacy.relation(LIFECYCLE)
    properties = spark_sql.storage_properties(relation)
    spark_sql.execute(f"create table {relation}__old using parquet options (partitionOverwriteMode 'dynamic') "
                      f"partitioned by (start_date) as "
                      f"select session_identifier, user_identifier, start_tstamp, end_tstamp, start_date "
                      f"from {relation}")
    spark_sql.execute(f"drop table {relation}")
    spark_sql.execute(f"alter table {relation}__old rename to {relation}")
    assert spark_sql.storage_properties(relation) == properties
    migrated = legacy.run("run", vars={"spark_incremental__now": U2})
    assert not [line for line in migrated.pkg_lines() if "full refresh" in line], migrated.pkg_lines()
    assert _users(spark_sql, legacy) == {**expected, "s": ("u-b", "10:00:00"), "p": ("u-p", "10:00:00")}


# A loader that stamps its rows before it commits them (or two loaders in parallel): a load
# stamped 23:58 commits after a run read a load stamped 00:00. With
# load_commit_lag_seconds = 600 the watermark the run records stays 10 minutes behind its
# clock, so the next run, with nothing newer than last_success, still finds the late load
# and processes it; once the lag has passed the watermark reaches the newest load and an
# idle run skips.
EARLY_STAMPED = "2021-01-01 23:58:00"


def test_a_load_committed_after_a_newer_one_is_found_within_the_commit_lag(
    make_project: Callable[..., DbtProject], spark_sql: SparkSql
) -> None:
    reference = _one_run(make_project, spark_sql, [(EARLY_STAMPED, LATE_LOAD), (L1, FIRST_LOAD)])
    project = make_project(**VARS, spark_incremental__load_commit_lag_seconds="600")
    spark_sql.create_table(_events_table(project), gen.EVENT_COLUMNS, [])
    _load(spark_sql, project, L1, FIRST_LOAD)
    first = project.run("run", vars={"spark_incremental__now": "2021-01-02 00:02:00"})
    assert ("spark_incremental: manifest: load watermark = '2021-01-01 23:52:00.000000' (held back 600 s"
            " (load_commit_lag_seconds) from the newest load read, '2021-01-02 00:00:00.000000': a load stamped"
            " since may still be committing, so the next run reads the lookback window again)") in first.pkg_lines()

    _load(spark_sql, project, EARLY_STAMPED, LATE_LOAD)
    late = project.run("run", vars={"spark_incremental__now": "2021-01-02 00:05:00"})
    rule = next(line for line in late.pkg_lines() if line.startswith("spark_incremental: no event after"))
    assert "events loaded after the load watermark '2021-01-01 23:52:00.000000'" in rule, rule
    assert _tables(spark_sql, project) == reference

    # the lag passes: one more run of the window records the newest load, then idle runs skip
    settle = project.run("run", vars={"spark_incremental__now": "2021-01-02 00:20:00"})
    assert "spark_incremental: manifest: load watermark = '2021-01-02 00:00:00.000000'" in settle.pkg_lines()
    idle = project.run("run", vars={"spark_incremental__now": "2021-01-02 00:25:00"})
    rule = next(line for line in idle.pkg_lines() if line.startswith("spark_incremental: no event after"))
    assert "nothing loaded into the lookback window since the load watermark '2021-01-02 00:00:00.000000'" in rule
    assert _tables(spark_sql, project) == reference


# An event past a session's cap (start + max_session_days) is not the session's: its user
# does not count, in one run over all the data as across runs. q reaches its cap (quarantined)
# before its first user arrives, inside the lookback; a's id comes back with a user two days
# after its cap. The lifecycle manifest took those users (one full run for q, the run that
# saw a3 for a), though the events are not in the sessions: one full run and the runs disagreed.
CAPPED_FIRST = [
    ("q1", "q", None, "2021-01-01 00:00:00"),
    ("q2", "q", None, "2021-01-02 00:00:00"),
    ("a1", "a", None, "2021-01-01 10:00:00"),
    ("a2", "a", None, "2021-01-01 10:05:00"),
]
CAPPED_LATER = [
    ("2021-01-04 12:00:00", [("q3", "q", "u-q", "2021-01-02 05:00:00"), ("b1", "b", "u-b", "2021-01-03 11:00:00"),
                             ("a3", "a", "u-a", "2021-01-04 11:00:00")]),
]


def test_an_event_past_the_cap_gives_no_user(make_project: Callable[..., DbtProject], spark_sql: SparkSql) -> None:
    capped_vars = {**VARS, "spark_incremental__max_session_days": 1}
    project = make_project(**capped_vars)
    spark_sql.create_table(_events_table(project), gen.EVENT_COLUMNS, [])
    _load_users(spark_sql, project, "2021-01-02 01:00:00", CAPPED_FIRST)
    project.run("run", vars={"spark_incremental__now": "2021-01-02 01:00:00"})
    for loaded, events in CAPPED_LATER:
        _load_users(spark_sql, project, loaded, events)
        project.run("run", vars={"spark_incremental__now": loaded})
    assert _users(spark_sql, project) == {"q": (None, None), "a": (None, None), "b": ("u-b", "11:00:00")}
    quarantined = spark_sql.query(f"select session_identifier, user_identifier "
                                  f"from {project.relation('spark_incremental_base_quarantined_sessions')}")
    assert sorted(quarantined) == [("a", None), ("q", None)]

    full = make_project(**capped_vars)
    spark_sql.create_table(_events_table(full), gen.EVENT_COLUMNS, [])
    _load_users(spark_sql, full, "2021-01-02 01:00:00", CAPPED_FIRST)
    for loaded, events in CAPPED_LATER:
        _load_users(spark_sql, full, loaded, events)
    full.run("run", vars={"spark_incremental__now": CAPPED_LATER[-1][0]})
    assert _users(spark_sql, full) == _users(spark_sql, project)
    assert _tables(spark_sql, project) == _tables(spark_sql, full)

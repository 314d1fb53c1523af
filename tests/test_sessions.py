"""Sessionisation (issue 4): lifecycle manifest, quarantine, whole-session reprocessing.

The test that matters feeds the generator's load batches one at a time, with a small
``backfill_limit_days`` and ``spark_incremental__now`` pinned to each batch's load time,
runs ``dbt run`` after each, and checks that the derived ``sessions`` and ``page_views``
equal those of ONE run over all the data in a fresh project, except exactly the
documented exclusions listed below.
"""

from __future__ import annotations

import time
from collections import defaultdict
from datetime import datetime, timedelta
from typing import Any, Callable

import pytest

from tests import generator as gen
from tests.harness.dbt import DbtProject, DbtResult
from tests.harness.sql import SparkSql

BASE_VARS: dict[str, Any] = {
    "spark_incremental__start_date": gen.START_DATE.strftime("%Y-%m-%d"),
    "spark_incremental__backfill_limit_days": gen.BACKFILL_LIMIT_DAYS,
    "spark_incremental__lookback_window_hours": gen.LOOKBACK_WINDOW_HOURS,
    "spark_incremental__max_session_days": gen.MAX_SESSION_DAYS,
    "spark_incremental__days_late_allowed": gen.DAYS_LATE_ALLOWED,
    "spark_incremental__app_ids": gen.APP_IDS,
}

# The documented exclusions (docs/sessions.md, "Late data"): events whose session
# timestamp was already behind the lookback window when they were loaded, in sessions
# that got no later event. An incremental run on collector_tstamp never sees them; one
# run over all the data does.
#   late-outside:         a whole session loaded four days late (01-04 10:00, loaded 01-08 06:00)
#   late-outside-partial: its first page view loaded two days after the rest was processed
EXCLUDED_EVENT_IDS = {f"late-outside-{i:03d}" for i in range(8)} | {"late-outside-partial-000"}
SESSIONS_MISSING_INCREMENTALLY = {"late-outside"}
SESSIONS_CHANGED_INCREMENTALLY = {"late-outside-partial"}

BOT = "bot-crawler"
REUSED = "id-reused"  # a session id seen again ten days after its session


# ----------------------------------------------------------------------------- helpers
def _ts(value: datetime) -> str:
    return value.strftime("%Y-%m-%d %H:%M:%S")


def _events_table(project: DbtProject) -> str:
    return project.relation("events")


def _create_events(spark_sql: SparkSql, project: DbtProject, rows: list[tuple]) -> None:
    spark_sql.create_table(_events_table(project), gen.EVENT_COLUMNS, rows)


def _rows_by(spark_sql: SparkSql, relation: str, key: str) -> dict[str, dict[str, Any]]:
    spark_sql.execute(f"refresh table {relation}")  # dbt rewrote it behind this session's cache
    rows = spark_sql.query_dicts(f"select * from {relation}")
    keyed = {row[key]: row for row in rows}
    assert len(keyed) == len(rows), f"{relation}: {key} is not unique"
    return keyed


def _window(result: DbtResult) -> str:
    lines = [line for line in result.pkg_lines() if "processing data between" in line]
    assert len(lines) == 1, result.pkg_lines()
    return lines[0].split("processing data between ", 1)[1]


def expected_sessions(events: list[gen.Event]) -> dict[str, dict[str, Any]]:
    """An independent, pure-Python statement of what `sessions` must hold for a set of
    events processed as a whole: the package's event rules (session id, app_ids,
    days_late_allowed, dedup on event_id keeping the earliest copy) and the cap of
    max_session_days from the session's first event."""
    allowed = timedelta(days=gen.DAYS_LATE_ALLOWED)
    kept: dict[str, gen.Event] = {}
    for e in sorted(events, key=lambda e: (e.collector_tstamp, e.load_tstamp)):
        if (e.domain_sessionid is None or e.app_id not in gen.APP_IDS
                or e.dvce_sent_tstamp is None or e.dvce_created_tstamp is None
                or e.dvce_sent_tstamp > e.dvce_created_tstamp + allowed):
            continue
        kept.setdefault(e.event_id, e)
    by_session: dict[str, list[gen.Event]] = defaultdict(list)
    for e in kept.values():
        by_session[e.domain_sessionid].append(e)  # type: ignore[index]
    out = {}
    for session, session_events in by_session.items():
        start = min(e.collector_tstamp for e in session_events)
        cap = start + timedelta(days=gen.MAX_SESSION_DAYS)
        inside = sorted((e for e in session_events if e.collector_tstamp <= cap),
                        key=lambda e: (e.collector_tstamp, e.event_id))
        page_views = [e for e in inside if e.event_name == "page_view"]
        out[session] = {
            "start_tstamp": inside[0].collector_tstamp,
            "end_tstamp": inside[-1].collector_tstamp,
            "event_count": len(inside),
            "page_view_count": len(page_views),
            "landing_page_url": page_views[0].page_url if page_views else None,
            "page_view_ids": [e.event_id for e in page_views],
        }
    return out


def _assert_matches_expectation(sessions: dict[str, dict], page_views: dict[str, dict],
                                expected: dict[str, dict], what: str) -> None:
    assert set(sessions) == set(expected), f"{what}: sessions differ from the expectation"
    for sid, exp in expected.items():
        row = sessions[sid]
        got = {k: row[k] for k in ("start_tstamp", "end_tstamp", "event_count", "page_view_count",
                                   "landing_page_url")}
        want = {k: v for k, v in exp.items() if k != "page_view_ids"}
        assert got == want, f"{what}: session {sid}"
        indexes = {pv: page_views[pv]["page_view_in_session_index"] for pv in exp["page_view_ids"]}
        assert indexes == {pv: i + 1 for i, pv in enumerate(exp["page_view_ids"])}, f"{what}: {sid}"
    assert set(page_views) == {pv for exp in expected.values() for pv in exp["page_view_ids"]}, what


def _assert_consistent(spark_sql: SparkSql, project: DbtProject) -> None:
    """No session double counted: one row per key in every session table, and the two
    derived tables agree with each other."""
    for relation, key in [
        ("sessions", "session_identifier"),
        ("page_views", "page_view_id"),
        ("spark_incremental_base_sessions_lifecycle_manifest", "session_identifier"),
        ("spark_incremental_base_quarantined_sessions", "session_identifier"),
    ]:
        spark_sql.execute(f"refresh table {project.relation(relation)}")
        total, distinct = spark_sql.query(
            f"select count(*), count(distinct {key}) from {project.relation(relation)}")[0]
        assert total == distinct, f"{relation}: {total - distinct} duplicated {key}"
    mismatched = spark_sql.query(f"""
        select s.session_identifier, s.page_view_count, count(p.page_view_id)
        from {project.relation('sessions')} s
        left join {project.relation('page_views')} p on s.session_identifier = p.session_identifier
        group by s.session_identifier, s.page_view_count
        having s.page_view_count != count(p.page_view_id)
    """)
    assert mismatched == []
    orphans = spark_sql.scalar(f"""
        select count(*) from {project.relation('page_views')} p
        left anti join {project.relation('sessions')} s on s.session_identifier = p.session_identifier
    """)
    assert orphans == 0


# ----------------------------------------------------------------------------- the test that matters
@pytest.mark.cluster_core
def test_incremental_batches_equal_one_full_run(
    make_project: Callable[..., DbtProject], spark_sql: SparkSql
) -> None:
    data = gen.generate()
    assert data.too_late_event_ids == EXCLUDED_EVENT_IDS
    started = time.monotonic()

    # incremental: one load batch at a time, dbt run after each
    incremental = make_project(**BASE_VARS)
    _create_events(spark_sql, incremental, [])
    windows = []
    moved_past_gap = 0
    for batch in data.batches:
        spark_sql.insert_rows(_events_table(incremental), gen.EVENT_COLUMNS, batch.rows())
        result = incremental.run("run", vars={"spark_incremental__now": _ts(batch.load_tstamp)})
        windows.append(_window(result))
        moved_past_gap += sum("moved past the gap" in line for line in result.pkg_lines())
    incremental_s = time.monotonic() - started
    # the first run was cut by backfill_limit_days, the last one caught up with "now"
    assert windows[0] == "'2021-01-01 00:00:00' and '2021-01-03 00:00:00'"
    assert windows[-1].endswith(f"and '{_ts(gen.BATCH_TIMES[-1])}'")
    # the outage does not move any model past a gap: last_success is the newest event the
    # window read, and the window before the outage ends on the bot's events (dropped at
    # its cap), so the next window starts before the outage and reads the events after it
    assert moved_past_gap == 0

    # reference: all the data at once, one run, in a fresh project
    full = make_project(**{**BASE_VARS, "spark_incremental__backfill_limit_days": 30,
                           "spark_incremental__now": _ts(gen.BATCH_TIMES[-1])})
    _create_events(spark_sql, full, data.rows())
    full_result = full.run("run")
    assert _window(full_result) == f"'2021-01-01 00:00:00' and '{_ts(gen.BATCH_TIMES[-1])}'"

    inc_sessions = _rows_by(spark_sql, incremental.relation("sessions"), "session_identifier")
    full_sessions = _rows_by(spark_sql, full.relation("sessions"), "session_identifier")
    inc_page_views = _rows_by(spark_sql, incremental.relation("page_views"), "page_view_id")
    full_page_views = _rows_by(spark_sql, full.relation("page_views"), "page_view_id")

    # both pipelines do what the rules say (pure-Python statement of the rules)
    _assert_matches_expectation(full_sessions, full_page_views, expected_sessions(data.events), "full run")
    without_exclusions = [e for e in data.events if e.event_id not in EXCLUDED_EVENT_IDS]
    _assert_matches_expectation(inc_sessions, inc_page_views, expected_sessions(without_exclusions),
                                "incremental runs")

    # incremental == full, except exactly the documented exclusions
    assert set(full_sessions) - set(inc_sessions) == SESSIONS_MISSING_INCREMENTALLY
    assert set(inc_sessions) - set(full_sessions) == set()
    changed = {sid for sid in inc_sessions if inc_sessions[sid] != full_sessions[sid]}
    assert changed == SESSIONS_CHANGED_INCREMENTALLY
    partial_inc, partial_full = inc_sessions["late-outside-partial"], full_sessions["late-outside-partial"]
    assert partial_inc["event_count"] == partial_full["event_count"] - 1
    assert partial_inc["page_view_count"] == partial_full["page_view_count"] - 1
    assert partial_inc["start_tstamp"] == partial_full["start_tstamp"] + timedelta(minutes=4)

    excluded_page_views = {pv for pv in full_page_views if pv in EXCLUDED_EVENT_IDS}
    assert excluded_page_views == {"late-outside-000", "late-outside-002", "late-outside-004",
                                   "late-outside-006", "late-outside-partial-000"}
    assert set(full_page_views) - set(inc_page_views) == excluded_page_views
    assert set(inc_page_views) - set(full_page_views) == set()
    changed_pv = {pv for pv in inc_page_views if inc_page_views[pv] != full_page_views[pv]}
    assert {inc_page_views[pv]["session_identifier"] for pv in changed_pv} == SESSIONS_CHANGED_INCREMENTALLY
    for pv in changed_pv:  # one page view fewer before each of them
        inc_row, full_row = inc_page_views[pv], full_page_views[pv]
        assert inc_row["page_view_in_session_index"] == full_row["page_view_in_session_index"] - 1
        assert inc_row["page_views_in_session"] == full_row["page_views_in_session"] - 1
        same = {k for k in inc_row if k not in {"page_view_in_session_index", "page_views_in_session"}}
        assert {k: inc_row[k] for k in same} == {k: full_row[k] for k in same}

    # quarantine: the bot and the reused session id, and only them, in both; processed up
    # to their cap. The reused id's last event came ten days after its start, long before
    # the window of the run that saw it: that run found the session's row all the same
    for project in (incremental, full):
        quarantined = spark_sql.query_dicts(
            f"select * from {project.relation('spark_incremental_base_quarantined_sessions')}")
        assert sorted(q["session_identifier"] for q in quarantined) == sorted([BOT, REUSED])
        for q in quarantined:
            assert q["end_tstamp"] - q["start_tstamp"] == timedelta(days=3), q
        _assert_consistent(spark_sql, project)
    assert inc_sessions[REUSED]["event_count"] == 3
    assert inc_sessions[REUSED]["end_tstamp"] == datetime(2021, 1, 2, 12, 10)
    assert inc_sessions[BOT]["event_count"] == 3 * 48 + 1
    assert inc_sessions[BOT]["end_tstamp"] == datetime(2021, 1, 5, 3, 0)

    # late data inside the lookback: caught with the whole session
    assert inc_sessions["late-inside"]["start_tstamp"] == datetime(2021, 1, 5, 21, 0)
    assert inc_sessions["late-inside-midnight"]["start_tstamp"] == datetime(2021, 1, 12, 23, 40)
    lifecycle = _rows_by(spark_sql, incremental.relation("spark_incremental_base_sessions_lifecycle_manifest"),
                         "session_identifier")
    assert lifecycle["late-inside-midnight"]["start_date"] == "2021-01-12"
    # sent late: within days_late_allowed kept (the session spans two days), beyond dropped
    assert inc_sessions["mobile-offline"]["event_count"] == 10
    assert inc_sessions["mobile-too-late-sent"]["event_count"] == 5
    # duplicates count once
    assert inc_sessions["dup-exact"]["event_count"] == 6
    assert inc_sessions["dup-retry"]["event_count"] == 5
    assert inc_sessions["dup-reloaded"]["event_count"] == 4
    # the session's user (its first non-null): known from the second run on for multi-2's early page views
    assert {inc_sessions[f"multi-{i}"]["user_identifier"] for i in range(1, 5)} == {"u-multi"}
    assert {pv["user_identifier"] for pv in inc_page_views.values()
            if pv["session_identifier"] == "multi-2"} == {"u-multi"}
    # filtered out: other apps, no session id, no device timestamps
    assert "internal-test" not in inc_sessions
    assert inc_sessions["null-dvce"]["event_count"] == 3

    n_ids = len({e.event_id for e in data.events})
    print(f"\nsessions test: {len(data.events)} event rows ({n_ids} ids) in {len(data.batches)} batches; "
          f"{len(full_sessions)} sessions, {len(full_page_views)} page views in the full run; "
          f"{len(windows)} incremental runs in {incremental_s:.0f} s, "
          f"total {time.monotonic() - started:.0f} s")


# ----------------------------------------------------------------------------- load_tstamp, skipping
def _event(event_id: str, session: str, name: str, collected: str, loaded: str) -> tuple:
    ts = datetime.fromisoformat(collected)
    return gen.Event(event_id, "website", name, session, f"user-{session}", "/p/" + event_id, ts,
                     ts - timedelta(seconds=2), ts - timedelta(seconds=1),
                     datetime.fromisoformat(loaded)).row()


LOAD_BATCHES = [
    ("2021-01-02 00:00:00", [
        ("a1", "a", "page_view", "2021-01-01 10:00:00"),
        ("a2", "a", "page_ping", "2021-01-01 10:05:00"),
        ("a3", "a", "page_view", "2021-01-01 10:10:00"),
        ("b1", "b", "page_view", "2021-01-01 20:00:00"),
        ("b2", "b", "page_view", "2021-01-01 20:03:00"),
    ]),
    ("2021-01-03 00:00:00", [
        ("a4", "a", "page_view", "2021-01-01 10:20:00"),  # a day late: the rest of session a
        ("c1", "c", "page_view", "2021-01-02 12:00:00"),
        ("c2", "c", "page_ping", "2021-01-02 12:02:00"),
    ]),
    ("2021-01-14 00:00:00", [
        ("w1", "late-whole", "page_view", "2021-01-01 15:00:00"),  # twelve days late
        ("w2", "late-whole", "page_view", "2021-01-01 15:01:00"),
        ("w3", "late-whole", "page_ping", "2021-01-01 15:02:00"),
        ("d1", "d", "page_view", "2021-01-13 23:00:00"),
    ]),
]


@pytest.mark.slow  # CI: test_late_loads.py (load_tstamp in the 3.5 step); make test runs this too
def test_load_tstamp_catches_late_loads_and_covered_models_skip(
    dbt_project: DbtProject, spark_sql: SparkSql
) -> None:
    """With session_timestamp = load_tstamp every late load is caught (a whole session
    twelve days late, the rest of a session a day late); then a new tracked model makes a
    state 2 backfill, which the covered derived models skip (is_run_with_new_events)."""
    project = dbt_project
    project.default_vars.update({
        "spark_incremental__start_date": "2021-01-01",
        "spark_incremental__session_timestamp": "load_tstamp",
    })
    spark_sql.create_table(_events_table(project), gen.EVENT_COLUMNS, [])
    for loaded, events in LOAD_BATCHES:
        rows = [_event(*event, loaded) for event in events]
        spark_sql.insert_rows(_events_table(project), gen.EVENT_COLUMNS, rows)
        project.run("run", vars={"spark_incremental__now": loaded})

    sessions = _rows_by(spark_sql, project.relation("sessions"), "session_identifier")
    assert {sid: row["event_count"] for sid, row in sessions.items()} == {
        "a": 4, "b": 2, "c": 2, "late-whole": 3, "d": 1}
    assert sessions["a"]["end_tstamp"] == datetime(2021, 1, 1, 10, 20)
    page_views = _rows_by(spark_sql, project.relation("page_views"), "page_view_id")
    assert {pv: row["page_view_in_session_index"] for pv, row in page_views.items()} == {
        "a1": 1, "a3": 2, "a4": 3, "b1": 1, "b2": 2, "c1": 1, "w1": 1, "w2": 2, "d1": 1}
    lifecycle = _rows_by(spark_sql, project.relation("spark_incremental_base_sessions_lifecycle_manifest"),
                         "session_identifier")
    # sessions are bounded by load time now: a was loaded over one day
    assert lifecycle["a"]["start_tstamp"] == datetime(2021, 1, 2)
    assert lifecycle["a"]["end_tstamp"] == datetime(2021, 1, 3)
    _assert_consistent(spark_sql, project)

    # a new tracked model: state 2 re-reads from start_date up to what the others processed
    before = {name: sorted(_rows_by(spark_sql, project.relation(name), key).items())
              for name, key in (("sessions", "session_identifier"), ("page_views", "page_view_id"))}
    project.write_model(
        "derived/extra_tracked.sql",
        "{{ config(materialized='table', tags=['spark_incremental']) }}\n"
        "select count(*) as events from {{ ref('spark_incremental_base_events_this_run') }}\n",
    )
    result = project.run("run", vars={"spark_incremental__now": "2021-01-14 00:00:00"})
    lines = result.pkg_lines()
    assert "spark_incremental: [state 2] new incremental models extra_tracked, backfilling" in lines
    for name in ("sessions", "page_views"):
        assert (f"spark_incremental: {name} has processed up to '2021-01-14 00:00:00', which covers this run's"
                " upper limit '2021-01-14 00:00:00': no new events for it, its work is skipped") in lines
        key = "session_identifier" if name == "sessions" else "page_view_id"
        assert sorted(_rows_by(spark_sql, project.relation(name), key).items()) == before[name]
    assert not any("extra_tracked has processed" in line for line in lines)
    assert spark_sql.query(f"select * from {project.relation('extra_tracked')}") == [(12,)]


# ----------------------------------------------------------------------------- quarantine
QUARANTINE_BATCHES = [
    ("2021-01-02 00:00:00", [
        ("r1", "r", "page_view", "2021-01-01 10:00:00"),
        # same partition as r, but before the next runs' window (lower limit: 01-01 04:00)
        ("x1", "x", "page_view", "2021-01-01 01:00:00"),
    ]),
    ("2021-01-06 00:00:00", [
        ("r2", "r", "page_view", "2021-01-05 12:00:00"),  # past r's cap (01-04 10:00): r is capped
        ("y1", "y", "page_view", "2021-01-05 09:00:00"),
    ]),
    ("2021-01-07 00:00:00", [
        ("z1", "z", "page_view", "2021-01-06 08:00:00"),
    ]),
]


def test_quarantine_reads_rewritten_partitions_and_catches_up(
    make_project: Callable[..., DbtProject], spark_sql: SparkSql
) -> None:
    """The quarantine reads only the lifecycle partitions the run's upsert rewrote. A
    session capped by a run that did not build the quarantine (here --exclude) is
    quarantined by the next run all the same (that run recorded no progress, so the next
    one sees the session's events again and writes its capped row again), and the tables
    equal one full run."""
    start = {"spark_incremental__start_date": "2021-01-01"}
    project = make_project(**start)
    spark_sql.create_table(_events_table(project), gen.EVENT_COLUMNS, [])
    quarantine = "spark_incremental_base_quarantined_sessions"
    lines = []
    for i, (loaded, events) in enumerate(QUARANTINE_BATCHES):
        spark_sql.insert_rows(_events_table(project), gen.EVENT_COLUMNS,
                              [_event(*event, loaded) for event in events])
        args = ("run", "--exclude", quarantine) if i == 1 else ("run",)
        lines.append(project.run(*args, vars={"spark_incremental__now": loaded}).pkg_lines())
        if i == 1:  # capped, not quarantined yet
            lifecycle = _rows_by(spark_sql, project.relation("spark_incremental_base_sessions_lifecycle_manifest"),
                                 "session_identifier")
            assert lifecycle["r"]["end_tstamp"] == datetime(2021, 1, 4, 10)
            assert _rows_by(spark_sql, project.relation(quarantine), "session_identifier") == {}
    reads = [[line for line in run if line.startswith("spark_incremental: quarantine: reads")] for run in lines]
    assert reads[1] == []
    # run 3: the partitions of r (01-01, written again), y (01-05) and z (01-06), no other
    assert reads[2] == ["spark_incremental: quarantine: reads 3 lifecycle partitions rewritten in this run:"
                        " 2021-01-01, 2021-01-05, 2021-01-06"], reads
    assert set(_rows_by(spark_sql, project.relation(quarantine), "session_identifier")) == {"r"}

    full = make_project(**start, spark_incremental__now=QUARANTINE_BATCHES[-1][0])
    spark_sql.create_table(_events_table(full), gen.EVENT_COLUMNS,
                           [_event(*event, loaded) for loaded, events in QUARANTINE_BATCHES for event in events])
    full.run("run")
    for name, key, ignored in (
        ("sessions", "session_identifier", set()),
        ("page_views", "page_view_id", set()),
        ("spark_incremental_base_sessions_lifecycle_manifest", "session_identifier", set()),
        (quarantine, "session_identifier", {"quarantined_at"}),
    ):
        got, want = (
            {k: {c: v for c, v in row.items() if c not in ignored}
             for k, row in _rows_by(spark_sql, p.relation(name), key).items()}
            for p in (project, full)
        )
        assert got == want, name
    _assert_consistent(spark_sql, project)


# A session id reused on the first day the lifecycle manifest searches (run 2's lower limit
# is 01-02 12:00, one day of session lookback: the day 01-01), one second before that
# time of day. The upsert rewrites the whole 01-01 partition (edge and far are merged into
# it), so the search must read the whole day too: it used to miss old's row there and the
# upsert replaced it with the new one, losing the session of 01-01.
LOOKBACK_VARS = {"spark_incremental__start_date": "2021-01-01", "spark_incremental__lookback_window_hours": 0,
                 "spark_incremental__max_session_days": 1, "spark_incremental__session_lookback_days": 1}
LOOKBACK_LOADS = [
    ("2021-01-03 00:00:00", [("old1", "old", "page_view", "2021-01-01 11:59:59"),
                             ("edge1", "edge", "page_view", "2021-01-01 12:00:00"),
                             ("far1", "far", "page_view", "2021-01-01 13:00:00"),
                             ("anchor1", "anchor", "page_view", "2021-01-02 12:00:00")]),
    ("2021-01-04 00:00:00", [("old2", "old", "page_view", "2021-01-03 10:00:00"),
                             ("edge2", "edge", "page_view", "2021-01-03 10:00:00"),
                             ("far2", "far", "page_view", "2021-01-03 14:00:00")]),
]


def _lookback_tables(spark_sql: SparkSql, project: DbtProject) -> dict[str, list[tuple]]:
    tables = {name: spark_sql.table_rows(project.relation(name))
              for name in ("sessions", "spark_incremental_base_sessions_lifecycle_manifest")}
    tables["quarantine"] = spark_sql.table_rows(
        f"(select session_identifier, start_tstamp, end_tstamp from "
        f"{project.relation('spark_incremental_base_quarantined_sessions')}) as q")
    return tables


def test_a_reused_id_on_the_lookbacks_first_day_keeps_its_session(
    make_project: Callable[..., DbtProject], spark_sql: SparkSql
) -> None:
    full = make_project(**LOOKBACK_VARS)
    _create_events(spark_sql, full, [_event(*e, loaded) for loaded, events in LOOKBACK_LOADS for e in events])
    full.run("run", vars={"spark_incremental__now": LOOKBACK_LOADS[-1][0]})
    expected = _lookback_tables(spark_sql, full)
    assert [row[:3] for row in expected["quarantine"]] == [
        ("edge", datetime(2021, 1, 1, 12), datetime(2021, 1, 2, 12)),
        ("far", datetime(2021, 1, 1, 13), datetime(2021, 1, 2, 13)),
        ("old", datetime(2021, 1, 1, 11, 59, 59), datetime(2021, 1, 2, 11, 59, 59))]

    project = make_project(**LOOKBACK_VARS)
    _create_events(spark_sql, project, [])
    for loaded, events in LOOKBACK_LOADS:
        spark_sql.insert_rows(_events_table(project), gen.EVENT_COLUMNS, [_event(*e, loaded) for e in events])
        project.run("run", vars={"spark_incremental__now": loaded})
    assert _lookback_tables(spark_sql, project) == expected


def test_events_without_an_identifier_are_dropped(
    make_project: Callable[..., DbtProject], spark_sql: SparkSql
) -> None:
    """An event whose identifier is null cannot be told from its copies: the session rules
    drop it everywhere (the lifecycle's bounds, events_this_run, the nothing-new rule),
    as they drop an event without a session id. Before, the dedup kept one null-id event
    of a run and dropped the others. Two daily runs equal one full run, every column."""
    sid, app = "s-null-ids", gen.APP_IDS[0]

    def event(event_id: str | None, at: datetime, load: datetime) -> gen.Event:
        return gen.Event(event_id, app, "page_view", sid, "u-null-ids", f"https://example.com/{at:%H%M}",
                         at, at, at, load)

    day1, day2 = datetime(2021, 1, 2, 10, 0), datetime(2021, 1, 3, 9, 0)
    load1, load2 = datetime(2021, 1, 2, 12, 0), datetime(2021, 1, 3, 12, 0)
    batches = [
        # the session's earliest event has no identifier: the session starts at 10:05
        [event(None, day1, load1), event("n-a", day1 + timedelta(minutes=5), load1),
         event(None, day1 + timedelta(minutes=10), load1), event("n-b", day1 + timedelta(minutes=15), load1)],
        [event(None, day2, load2), event("n-c", day2 + timedelta(minutes=5), load2)],
    ]
    incremental = make_project(**BASE_VARS)
    _create_events(spark_sql, incremental, [])
    for rows, load in zip(batches, (load1, load2)):
        spark_sql.insert_rows(_events_table(incremental), gen.EVENT_COLUMNS, [e.row() for e in rows])
        incremental.run("run", vars={"spark_incremental__now": _ts(load)})
    full = make_project(**{**BASE_VARS, "spark_incremental__backfill_limit_days": 30,
                           "spark_incremental__now": _ts(load2)})
    _create_events(spark_sql, full, [e.row() for rows in batches for e in rows])
    full.run("run")

    kept = spark_sql.query_dicts(
        f"select event_id from {full.relation('spark_incremental_base_events_this_run')} order by event_id")
    assert [row["event_id"] for row in kept] == ["n-a", "n-b", "n-c"]
    for project in (incremental, full):
        sessions = _rows_by(spark_sql, project.relation("sessions"), "session_identifier")
        assert sessions[sid]["start_tstamp"] == day1 + timedelta(minutes=5), project.schema
        assert sessions[sid]["event_count"] == 3, project.schema
        assert sessions[sid]["page_view_count"] == 3, project.schema
        lifecycle = _rows_by(spark_sql, project.relation("spark_incremental_base_sessions_lifecycle_manifest"),
                             "session_identifier")
        assert lifecycle[sid]["start_tstamp"] == day1 + timedelta(minutes=5), project.schema
        assert lifecycle[sid]["end_tstamp"] == day2 + timedelta(minutes=5), project.schema
    for relation in ("sessions", "page_views", "spark_incremental_base_sessions_lifecycle_manifest"):
        tables = []
        for project in (incremental, full):
            spark_sql.execute(f"refresh table {project.relation(relation)}")
            tables.append(sorted(spark_sql.query_dicts(f"select * from {project.relation(relation)}"),
                                 key=lambda row: repr(sorted(row.items()))))
        assert tables[0] == tables[1], relation


# ----------------------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    ("bad_vars", "message"),
    [
        ({"spark_incremental__session_identifier": "sid"},
         "spark_incremental__session_identifier = 'sid' is not a column of"),
        ({"spark_incremental__user_identifier": "uid"},
         "spark_incremental__user_identifier = 'uid' is not a column of"),
        # a text column as the session timestamp: stopped before the run lock, not by Spark's
        # CAST_INVALID_INPUT in new_event_limits
        ({"spark_incremental__session_timestamp": "page_url"},
         "spark_incremental__session_timestamp = 'page_url' is a string column of"),
        ({"spark_incremental__max_session_days": 0},
         "spark_incremental__max_session_days = 0 (integer) is not allowed: it must be a whole number >= 1"),
        ({"spark_incremental__session_lookback_days": 2},
         "spark_incremental__session_lookback_days = 2 is not allowed: it must be at least"
         " spark_incremental__max_session_days (3)"),
    ],
)
def test_bad_session_vars_fail_clearly(
    dbt_project: DbtProject, spark_sql: SparkSql, bad_vars: dict, message: str
) -> None:
    project = dbt_project
    spark_sql.create_table(_events_table(project), gen.EVENT_COLUMNS,
                           [_event("e1", "s1", "page_view", "2021-01-01 10:00:00", "2021-01-01 10:05:00")])
    project.default_vars.update({"spark_incremental__start_date": "2021-01-01",
                                 "spark_incremental__now": "2021-01-02 00:00:00"})
    result = project.run("run", vars=bad_vars, expect_success=False)
    assert message in result.text()
    if "spark_incremental__session_timestamp" in bad_vars:
        assert ("Its timestamp columns: collector_tstamp, dvce_created_tstamp, dvce_sent_tstamp, load_tstamp."
                in result.text()), result.tail(20)
        # the load timestamp too (a date column here), checked as early
        load = project.run("run", vars={"spark_incremental__load_timestamp": "collector_date"}, expect_success=False)
        assert "spark_incremental__load_timestamp = 'collector_date' is a date column of" in load.text(), load.tail(20)
        assert "spark_incremental_manifest_log" not in {row[1] for row in spark_sql.query(f"show tables in {project.schema}")}
    # the numeric vars fail while dbt parses; the column checks when the run's first read of
    # the events table (events_in_window) compiles; either way nothing downstream runs and
    # no progress is recorded
    assert result.statuses.get("spark_incremental_base_events_in_window", "error") == "error"
    assert result.statuses.get("spark_incremental_base_sessions_lifecycle_manifest", "skipped") == "skipped"
    assert {result.statuses.get(m, "skipped") for m in ("sessions", "page_views")} == {"skipped"}
    tables = {row[1] for row in spark_sql.query(f"show tables in {project.schema}")}
    if "spark_incremental_manifest_log" in tables:
        progress = spark_sql.scalar(f"select count(*) from {project.relation('spark_incremental_manifest_log')}"
                                    " where record_type = 'events'")
        assert progress == 0

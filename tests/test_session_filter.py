"""The session id filter (issue 17): the lifecycle manifest reads its recent rows and,
older, only the rows of window sessions the Bloom filter may hold. Every scenario ends
with the tables of one full run over the same events: sessions, page_views, the lifecycle
manifest and the quarantine (docs/sessions.md, "Why the scan stays flat")."""

from __future__ import annotations

from typing import Any, Callable

import pytest

from benchmarks.metrics import SqlMetrics

from tests import generator as gen
from tests.harness.dbt import DbtProject
from tests.harness.sql import SparkSql
from tests.test_sessions import _assert_consistent, _event, _events_table, _rows_by

FILTER = "spark_incremental_base_session_id_filter"
LIFECYCLE = "spark_incremental_base_sessions_lifecycle_manifest"
QUARANTINE = "spark_incremental_base_quarantined_sessions"
START = {"spark_incremental__start_date": "2021-01-01"}

# max_session_days 3. R (the filter's covers_before after each run) = the date of the
# window's earliest session timestamp minus 3 days (a window starts lookback_window_hours
# before the last run's latest event): 2020-12-29, 2020-12-29, 2021-01-02, 2021-01-06. Session "old" comes back eight days after it started (past its cap): the
# third run finds its row through the filter (its id was added by the second run), caps
# it and quarantines it, as one full run does.
BATCHES = [
    ("2021-01-02 00:00:00", [
        ("a1", "a", "page_view", "2021-01-01 10:00:00"),
        ("a2", "a", "page_ping", "2021-01-01 10:05:00"),
        ("o1", "old", "page_view", "2021-01-01 12:00:00"),
        ("o2", "old", "page_view", "2021-01-01 12:10:00"),
        ("b1", "b", "page_view", "2021-01-01 20:00:00"),
    ]),
    ("2021-01-06 00:00:00", [
        ("c1", "c", "page_view", "2021-01-05 09:00:00"),
        ("d1", "d", "page_view", "2021-01-05 10:00:00"),
        ("d2", "d", "page_view", "2021-01-05 10:30:00"),
    ]),
    ("2021-01-10 00:00:00", [
        ("e1", "e", "page_view", "2021-01-09 08:00:00"),
        ("o3", "old", "page_view", "2021-01-09 09:00:00"),  # eight days after its start
    ]),
    ("2021-01-11 00:00:00", [
        ("f1", "f", "page_view", "2021-01-10 10:00:00"),
        ("e2", "e", "page_view", "2021-01-10 11:00:00"),  # session e continues (recent region)
    ]),
]


# over_cap: 1,000 more sessions in the third run's window, so that with a saturated filter
# the candidates pass the cap (1,000) and the whole old region is read instead
MANY = [(f"m{i}", f"many-{i:04d}", "page_view", "2021-01-09 10:00:00") for i in range(1000)]


def _batches(case: str) -> list[tuple[str, list[tuple[str, str, str, str]]]]:
    if case != "over_cap":
        return BATCHES
    return [(loaded, events + MANY if i == 2 else events) for i, (loaded, events) in enumerate(BATCHES)]


def _lifecycle_line(lines: list[str]) -> str:
    found = [line for line in lines if line.startswith("spark_incremental: lifecycle: reads")]
    assert len(found) == 1, lines
    return found[0]


def _assert_equals_full_run(make_project: Callable[..., DbtProject], spark_sql: SparkSql,
                            project: DbtProject, case: str, **extra_vars: Any) -> None:
    batches = _batches(case)
    full = make_project(**START, **extra_vars, spark_incremental__now=batches[-1][0])
    spark_sql.create_table(_events_table(full), gen.EVENT_COLUMNS,
                           [_event(*event, loaded) for loaded, events in batches for event in events])
    full.run("run")
    for name, key, ignored in (
        ("sessions", "session_identifier", set()),
        ("page_views", "page_view_id", set()),
        (LIFECYCLE, "session_identifier", set()),
        (QUARANTINE, "session_identifier", {"quarantined_at"}),
    ):
        got, want = (
            {k: {c: v for c, v in row.items() if c not in ignored}
             for k, row in _rows_by(spark_sql, p.relation(name), key).items()}
            for p in (project, full)
        )
        assert got == want, name
    assert set(_rows_by(spark_sql, project.relation(QUARANTINE), "session_identifier")) == {"old"}
    _assert_consistent(spark_sql, project)


# CI runs standard (kills: test_write_layer in the 3.5 step); make test runs every case
@pytest.mark.parametrize("case", ["standard", pytest.param("saturated", marks=pytest.mark.slow),
                                  pytest.param("over_cap", marks=pytest.mark.slow), pytest.param("killed", marks=pytest.mark.slow),
                                  pytest.param("upgrade", marks=pytest.mark.slow), pytest.param("step", marks=pytest.mark.slow)])
def test_session_filter_runs_equal_one_full_run(
    case: str, make_project: Callable[..., DbtProject], spark_sql: SparkSql, spark_server: Any
) -> None:
    """standard: a run with no recurring id reads no old lifecycle row (the log says so);
    saturated: a one-bitmap filter with every bit set (every id a false positive) reads
    the old rows of every window session, same tables; over_cap: the same with more
    candidates than the cap, so the whole old region is read; killed: a run stopped in its first
    overwrite (the filter's), then a run that builds the filter alone (its write without
    the lifecycle's), then normal runs; upgrade: a lifecycle manifest without a filter (an
    earlier version) is caught up in one run. These move the filter every run
    (session_filter_step_days '1', as text, the way env_var passes it); step: the default
    step of 7 days, so the filter is written by the first run and the fourth only (R - F =
    8 days) and the third run finds the returning id among its recent rows. In a run that
    keeps the filter as it is, the lifecycle reads no filter of its own: the filter model's
    query looked its ids up."""
    saturated = case in ("saturated", "over_cap")
    extra: dict[str, Any] = {"spark_incremental__session_filter_buckets": 1} if saturated else {}
    if case != "step":
        extra["spark_incremental__session_filter_step_days"] = "1"
    project = make_project(**START, **extra)
    spark_sql.create_table(_events_table(project), gen.EVENT_COLUMNS, [])
    lines = []
    texts = []
    probe = SqlMetrics(spark_server.ui_url)
    filter_readers = []
    for i, (loaded, events) in enumerate(_batches(case)):
        spark_sql.insert_rows(_events_table(project), gen.EVENT_COLUMNS,
                              [_event(*event, loaded) for event in events])
        now = {"spark_incremental__now": loaded}
        if i == 2 and saturated:
            relation = project.relation(FILTER)
            spark_sql.execute(f"refresh table {relation}")
            bits, covers = spark_sql.query(f"select filter_bits, covers_before from {relation} where bucket_id = -1")[0]
            assert (bits, covers) == (32768, "2020-12-29")
            spark_sql.execute(f"insert overwrite table {relation}"
                              f" select 0, unhex(repeat('FF', 4096)), {bits}, '{covers}'"
                              f" union all select -1, cast(null as binary), {bits}, '{covers}'")
        if i == 2 and case == "killed":
            failed = project.run("run", vars={**now, "spark_incremental__fail_at": "before_overwrite"},
                                 expect_success=False)
            assert failed.statuses[FILTER] == "error", failed.statuses
            project.run("run", "-s", f"+{FILTER}", vars=now)
        if i == 2 and case == "upgrade":
            spark_sql.execute(f"drop table {project.relation(FILTER)}")
        mark = probe.mark()
        result = project.run("run", vars=now)
        statements = probe.reads_since(mark, project.schema, "events").statements
        filter_readers.append({st["node"].rsplit(".", 1)[-1] for st in statements
                               if any(name.lower().endswith(FILTER) for name in st["tables"])})
        lines.append(result.pkg_lines())
        texts.append(result.text())
    filter_lines = [[line for line in run if "session id filter:" in line] for run in lines]
    # a run that keeps the filter: one read of it (the filter model's query, which looked
    # up the lifecycle's ids too); a run that rewrites it: the lifecycle reads the new one
    kept = [any(line.startswith(f"spark_incremental: {FILTER}: skipped:") for line in run) for run in lines]
    if case in ("standard", "step"):
        assert any(kept), lines
    for i, (keeps, readers) in enumerate(zip(kept, filter_readers)):
        if keeps:
            assert readers == {FILTER}, (i, readers)
        elif i > 0:
            assert LIFECYCLE in readers, (i, readers)
    assert filter_lines[0] == ["spark_incremental: session id filter: none of "
                               f"{extra.get('spark_incremental__session_filter_buckets', 2048)} buckets yet;"
                               " now covers before 2020-12-29 (nothing to add)"], filter_lines
    if case in ("standard", "upgrade"):
        # run 2: F stays 2020-12-29 (its window starts again on 01-01): an empty filter
        assert "0 window sessions may be older" in _lifecycle_line(lines[1])
        # ... and the filter writes nothing: no stage, no state row (skip_write)
        assert any(line.startswith(f"spark_incremental: {FILTER}: skipped: the filter already covers the sessions"
                                   " starting before 2020-12-29") for line in lines[1]), lines[1]
        # run 3: only the returning id is read from the old region
        assert ("1 window sessions may be older (in the session id filter): their rows starting in"
                in _lifecycle_line(lines[2])), lines[2]
        # run 4 (its window starts at 01-09 03:00, lookback): no recurring id (old is
        # quarantined, so not a candidate): the old region is not read
        last = _lifecycle_line(lines[3])
        assert last.startswith("spark_incremental: lifecycle: reads the sessions starting from 2021-01-06"), last
        assert "0 window sessions may be older (in the session id filter): the old region is not read" in last
    if case == "upgrade":
        assert filter_lines[2] == ["spark_incremental: session id filter: none of 2048 buckets yet; adds the ids of"
                                   " lifecycle rows starting in [the first, 2021-01-02), now covers before 2021-01-02"]
    if case == "saturated":
        # every window session of run 3 (c, d, e, old) is a candidate: only old is found
        assert "4 window sessions may be older" in _lifecycle_line(lines[2]), lines[2]
        # one false candidate reads the whole old region: the run says how often that happens
        assert ("100.0% full (false positive rate ~1.0e+00): with 4 window sessions, about 100 runs in 100"
                " read the whole old region of the lifecycle manifest") in " ".join(texts[2].split()), texts[2]
    if case == "step":
        skipped = [[line for line in run if line.startswith(f"spark_incremental: {FILTER}: skipped:")] for run in lines]
        assert skipped[0] == [] and skipped[3] == [], skipped
        assert len(skipped[1]) == 1 and skipped[1][0].startswith(
            f"spark_incremental: {FILTER}: skipped: the filter already covers the sessions"
            " starting before 2020-12-29, this run needs no more"), skipped
        assert len(skipped[2]) == 1 and skipped[2][0].startswith(
            f"spark_incremental: {FILTER}: skipped: the filter already covers the sessions"
            " starting before 2020-12-29; this run could move that to 2021-01-02 (4 days), less"
            " than spark_incremental__session_filter_step_days (7): the lifecycle reads those"
            " days as recent rows"), skipped
        # run 3: the returning id's row (started 2021-01-01) is a recent row: no candidate needed
        third = _lifecycle_line(lines[2])
        assert third.startswith("spark_incremental: lifecycle: reads the sessions starting from 2020-12-29"), third
        assert filter_lines[3] == ["spark_incremental: session id filter: covers sessions starting before 2020-12-29;"
                                   " adds the ids of lifecycle rows starting in [2020-12-29, 2021-01-06), now covers"
                                   " before 2021-01-06"], filter_lines
        assert _lifecycle_line(lines[3]).startswith(
            "spark_incremental: lifecycle: reads the sessions starting from 2021-01-06")
    if case == "over_cap":
        assert "more than 1000 window sessions may be older: the whole old region from" in _lifecycle_line(lines[2])
    _assert_equals_full_run(make_project, spark_sql, project, case, **extra)

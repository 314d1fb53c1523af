"""Rebuilds never lose history (issue 13, items 1 and 3).

A model fed by the events window (a tracked derived model, the sessions lifecycle
manifest) that is rebuilt - by --full-refresh, by a changed config - is built empty and
removed from the manifest in the same run, so the next runs backfill it from start_date:
after catch-up runs every table equals ONE run over all the data in a fresh project
(sorted rows, every column). A time-interval model forgets its done intervals before its
swap, so a failing first batch does not leave history marked done over an empty table.

The events (the generator's, up to FINAL_NOW) are all in the table from the start and
``spark_incremental__now`` moves forward run by run: no event is loaded late, so an
incremental pipeline has nothing it may miss, and any difference is a loss.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any, Callable

import pytest

from tests import generator as gen
from tests.harness.dbt import DbtProject, DbtResult
from tests.harness.sql import SparkSql, _sort_key
from tests.test_intervals import DAILY_EVENTS, EVENTS, SOURCES_YML, done_intervals, events_rows, reference, table
from tests.test_plan_preview import _plan_with

FINAL_NOW = datetime(2021, 1, 7)
BASE_VARS: dict[str, Any] = {
    "spark_incremental__start_date": gen.START_DATE.strftime("%Y-%m-%d"),
    "spark_incremental__backfill_limit_days": 3,
    "spark_incremental__lookback_window_hours": gen.LOOKBACK_WINDOW_HOURS,
    "spark_incremental__max_session_days": gen.MAX_SESSION_DAYS,
    "spark_incremental__days_late_allowed": gen.DAYS_LATE_ALLOWED,
    "spark_incremental__app_ids": gen.APP_IDS,
}
LIFECYCLE = "spark_incremental_base_sessions_lifecycle_manifest"
QUARANTINE = "spark_incremental_base_quarantined_sessions"
# every table the events pipeline derives, and the columns that are not a function of the
# events (when the row was written)
TABLES = {"sessions": [], "page_views": [], LIFECYCLE: [], QUARANTINE: ["quarantined_at"]}

_REFERENCE: dict[str, list[tuple]] = {}


def _now(value: datetime) -> dict[str, str]:
    return {"spark_incremental__now": value.strftime("%Y-%m-%d %H:%M:%S")}


def _rows() -> list[tuple]:
    return [e.row() for e in gen.generate().events if e.collector_tstamp < FINAL_NOW]


def _project(make_project: Callable[..., DbtProject], spark_sql: SparkSql, **extra: Any) -> DbtProject:
    project = make_project(**{**BASE_VARS, **extra})
    spark_sql.create_table(project.relation("events"), gen.EVENT_COLUMNS, _rows())
    return project


def _contents(spark_sql: SparkSql, project: DbtProject,
              tables: dict[str, list[str]] = TABLES) -> dict[str, list[tuple]]:
    """Every row of each table (name -> columns left out), sorted, columns by name."""
    out = {}
    for name, skipped in tables.items():
        relation = project.relation(name)
        spark_sql.execute(f"refresh table {relation}")  # dbt rewrote it behind this session's cache
        columns = [row[0] for row in spark_sql.query(f"describe {relation}")
                   if row[0] and not row[0].startswith("#") and row[0] not in skipped]
        columns = sorted(set(columns))  # by name: partition columns come last, and twice
        out[name] = sorted(spark_sql.query(f"select {', '.join(columns)} from {relation}"), key=_sort_key)
    return out


def _reference(make_project: Callable[..., DbtProject], spark_sql: SparkSql) -> dict[str, list[tuple]]:
    """The tables of one run over all the data in a fresh project (built once per module)."""
    if not _REFERENCE:
        full = _project(make_project, spark_sql, spark_incremental__backfill_limit_days=30)
        full.run("run", vars=_now(FINAL_NOW))
        _REFERENCE.update(_contents(spark_sql, full))
        assert all(_REFERENCE[name] for name in TABLES), {k: len(v) for k, v in _REFERENCE.items()}
    return _REFERENCE


def _assert_equals_one_full_run(make_project: Callable[..., DbtProject], spark_sql: SparkSql,
                                project: DbtProject) -> None:
    want = _reference(make_project, spark_sql)
    got = _contents(spark_sql, project)
    for name in TABLES:
        missing = [row for row in want[name] if row not in got[name]]
        extra = [row for row in got[name] if row not in want[name]]
        assert got[name] == want[name], f"{name}: {len(missing)} rows missing, {len(extra)} extra: {missing[:3]} {extra[:3]}"


def _tracked_progress(spark_sql: SparkSql, project: DbtProject) -> dict[str, str]:
    relation = project.relation("spark_incremental_manifest")
    rows = spark_sql.query(f"select model, cast(last_success as string) from {relation} where last_success is not null")
    return dict(rows)


def _catch_up(project: DbtProject, runs: int) -> list[str]:
    """`runs` runs at FINAL_NOW; returns each run's state line."""
    states = []
    for _ in range(runs):
        result = project.run("run", vars=_now(FINAL_NOW))
        states.extend(line.split("] ", 1)[0] + "]" for line in result.pkg_lines() if "[state " in line)
    return states


def _two_runs(project: DbtProject) -> None:
    project.run("run", vars=_now(datetime(2021, 1, 4)))
    project.run("run", vars=_now(datetime(2021, 1, 6)))


def _line(result: DbtResult, *parts: str) -> str:
    found = [line for line in result.pkg_lines() if all(part in line for part in parts)]
    assert found, (parts, result.pkg_lines())
    return found[0]


# ----------------------------------------------------------------------------- (a)
@pytest.mark.slow  # CI: test_every_path_in_one_history_equals_one_full_run rebuilds sessions by --full-refresh; make test runs this too
def test_full_refresh_of_a_derived_model_is_backfilled(
    make_project: Callable[..., DbtProject], spark_sql: SparkSql
) -> None:
    project = _project(make_project, spark_sql)
    _two_runs(project)
    assert set(_tracked_progress(spark_sql, project)) == {"sessions", "page_views"}

    result = project.run("run", "--full-refresh", "--select", "sessions", vars=_now(datetime(2021, 1, 6)))
    line = _line(result, "sessions: full refresh: --full-refresh: removed from the manifest: sessions.")
    assert "backfills it from spark_incremental__start_date (2021-01-01)" in line
    assert "3 days (spark_incremental__backfill_limit_days) per run" in line
    _line(result, "sessions: full refresh: --full-refresh, built empty: backfilled from start_date next (0 rows)")
    assert spark_sql.scalar(f"select count(*) from {project.relation('sessions')}") == 0
    assert set(_tracked_progress(spark_sql, project)) == {"page_views"}

    # state 2 from start_date (sessions is new), then sync, then the standard run
    assert _catch_up(project, 3) == ["spark_incremental: [state 2]", "spark_incremental: [state 3]",
                                     "spark_incremental: [state 4]"]
    _assert_equals_one_full_run(make_project, spark_sql, project)


SESSION_IDS = """{{ config(materialized='incremental', incremental_strategy='append', file_format='parquet',
          tags=['spark_incremental']) }}

with

sessions as (
    select distinct session_identifier
    from {{ ref('spark_incremental_base_events_this_run') }}
),

final as (
    select sessions.session_identifier
    from sessions
    {%- if is_incremental() %}
    left anti join {{ this }} as known on sessions.session_identifier = known.session_identifier
    {%- endif %}
)

select * from final
"""


def _assert_session_ids_whole(spark_sql: SparkSql, project: DbtProject) -> None:
    """session_ids (SESSION_IDS) holds every session: sessions equals a full run's (asserted
    before this) and has one row per session it touched."""
    relation = project.relation("session_ids")
    spark_sql.execute(f"refresh table {relation}")
    got = sorted(spark_sql.query(f"select session_identifier from {relation}"), key=_sort_key)
    want = sorted(spark_sql.query(f"select session_identifier from {project.relation('sessions')}"), key=_sort_key)
    assert got == want, f"session_ids: {len(got)} rows, a full run has {len(want)}"


# ----------------------------------------------------------------------------- (a')
@pytest.mark.slow  # CI: the same rebuild path as the derived model's, in test_every_path_in_one_history_equals_one_full_run; make test runs this too
def test_full_refresh_of_a_dbt_incremental_tracked_model_is_backfilled(
    make_project: Callable[..., DbtProject], spark_sql: SparkSql
) -> None:
    """dbt's own incremental materialization: --full-refresh builds it from one window; the
    end-of-run hook forgets it and empties it, and the backfill makes it whole."""
    project = _project(make_project, spark_sql)
    project.write_model("derived/session_ids", SESSION_IDS)
    _two_runs(project)
    assert set(_tracked_progress(spark_sql, project)) == {"sessions", "page_views", "session_ids"}

    result = project.run("run", "--full-refresh", "--select", "session_ids", vars=_now(datetime(2021, 1, 6)))
    _line(result, "session_ids: full refresh: --full-refresh of a dbt incremental model", "removed from the manifest")
    _line(result, "session_ids: emptied")
    assert spark_sql.scalar(f"select count(*) from {project.relation('session_ids')}") == 0
    assert set(_tracked_progress(spark_sql, project)) == {"sessions", "page_views"}

    assert _catch_up(project, 3) == ["spark_incremental: [state 2]", "spark_incremental: [state 3]",
                                     "spark_incremental: [state 4]"]
    _assert_equals_one_full_run(make_project, spark_sql, project)
    _assert_session_ids_whole(spark_sql, project)


# ----------------------------------------------------------------------------- (b)
@pytest.mark.slow  # CI: the rebuild path and its backfill, in test_every_path_in_one_history_equals_one_full_run; make test runs this too
def test_rebuilt_lifecycle_manifest_re_derives_the_base_chain(
    make_project: Callable[..., DbtProject], spark_sql: SparkSql
) -> None:
    project = _project(make_project, spark_sql)
    _two_runs(project)
    assert spark_sql.scalar(f"select count(*) from {project.relation(QUARANTINE)}") > 0  # the bot

    # kept on --full-refresh unless allow_refresh
    project.run("run", "--full-refresh", "--select", LIFECYCLE, vars=_now(datetime(2021, 1, 6)))
    assert set(_tracked_progress(spark_sql, project)) == {"sessions", "page_views"}

    result = project.run("run", "--full-refresh", "--select", LIFECYCLE,
                         vars={**_now(datetime(2021, 1, 6)), "spark_incremental__allow_refresh": True})
    _line(result, f"{LIFECYCLE}: full refresh: --full-refresh: removed from the manifest: page_views, sessions.")
    _line(result, f"{LIFECYCLE}: emptied ")
    for name in (LIFECYCLE, QUARANTINE):
        spark_sql.execute(f"refresh table {project.relation(name)}")
        assert spark_sql.scalar(f"select count(*) from {project.relation(name)}") == 0, name
    assert _tracked_progress(spark_sql, project) == {}

    assert _catch_up(project, 2) == ["spark_incremental: [state 1]", "spark_incremental: [state 4]"]
    _assert_equals_one_full_run(make_project, spark_sql, project)


# ----------------------------------------------------------------------------- (b')
@pytest.mark.slow  # CI: the same rebuild path, in test_every_path_in_one_history_equals_one_full_run; make test runs this too
def test_a_dropped_table_of_a_tracked_model_is_backfilled(
    make_project: Callable[..., DbtProject], spark_sql: SparkSql
) -> None:
    """A tracked model's table is dropped by hand (or the model deleted and added back)
    while the manifest keeps its progress: the start hook forgets it, so the same run
    backfills it from start_date instead of building it from one window (managed and
    dbt's own incremental alike); after catch-up runs the tables equal one full run."""
    project = _project(make_project, spark_sql)
    project.write_model("derived/session_ids", SESSION_IDS)
    _two_runs(project)
    assert set(_tracked_progress(spark_sql, project)) == {"sessions", "page_views", "session_ids"}
    for name in ("sessions", "session_ids"):
        spark_sql.execute(f"drop table {project.relation(name)}")

    # the plan preview and show_state, which write nothing, show what the start hook will
    # do first: those models forgotten, and the window of their backfill (state 2)
    shown, plan = _plan_with(project, _now(FINAL_NOW))
    limits = {e["model"]: e for e in plan["models"]}["spark_incremental_base_new_event_limits"]
    assert (limits["state"], limits["lower_limit"]) == (2, "2021-01-01 00:00:00"), limits
    for name in ("session_ids", "sessions"):
        assert any(line.startswith(f"spark_incremental: {name}: its table ") and
                   f"the next run forgets {name} in its on-run-start hook" in line
                   for line in shown.pkg_lines()), shown.pkg_lines()
    state = project.run("run-operation", "spark_incremental.show_state", vars=_now(FINAL_NOW))
    assert any("the next run forgets sessions in its on-run-start hook" in line for line in state.pkg_lines())
    assert any(line.startswith("sessions ") and "state 2: events '2021-01-01 00:00:00' to " + repr(limits["upper_limit"])
               in line for line in state.lines), state.lines

    result = project.run("run", vars=_now(FINAL_NOW))
    assert f"processing data between '{limits['lower_limit']}' and '{limits['upper_limit']}'" in "\n".join(
        result.pkg_lines()), result.pkg_lines()
    for name in ("session_ids", "sessions"):
        line = _line(result, f"{name}: its table ",
                     " does not exist (dropped, the model deleted and added back, or its schema or alias changed)",
                     f"removed from the manifest: {name}.")
        assert "backfills it from spark_incremental__start_date (2021-01-01)" in line, line
    states = [line.split("] ", 1)[0] + "]" for line in result.pkg_lines() if "[state " in line]
    assert states == ["spark_incremental: [state 2]"], result.pkg_lines()
    assert _line(result, "[state 2] new incremental models session_ids, sessions, backfilling")

    states = _catch_up(project, 3)
    assert states[-1] == "spark_incremental: [state 4]", states
    _assert_equals_one_full_run(make_project, spark_sql, project)
    _assert_session_ids_whole(spark_sql, project)


# ----------------------------------------------------------------------------- (c)
@pytest.mark.slow  # CI: a forced rebuild and its backfill run in test_every_path_in_one_history_equals_one_full_run; make test runs this too
def test_changed_partition_by_rebuild_is_backfilled(
    make_project: Callable[..., DbtProject], spark_sql: SparkSql
) -> None:
    project = _project(make_project, spark_sql)
    _two_runs(project)
    path = "models/derived/page_views.sql"
    text = project.read_file(path)
    assert "partition_by='page_view_date'," in text
    project.write_file(path, text.replace("partition_by='page_view_date',", "partition_by='app_id',"))

    # the automatic rebuild happens in a normal run: page_views is emptied and forgotten,
    # sessions moves on
    result = project.run("run", vars=_now(FINAL_NOW))
    _line(result, "page_views: full refresh: partition_by changed from", "removed from the manifest: page_views.")
    assert set(_tracked_progress(spark_sql, project)) == {"sessions"}
    assert spark_sql.query(f"show partitions {project.relation('page_views')}") == []

    assert _catch_up(project, 2) == ["spark_incremental: [state 2]", "spark_incremental: [state 3]"]
    _assert_equals_one_full_run(make_project, spark_sql, project)
    assert {row[0].split("=")[0] for row in spark_sql.query(f"show partitions {project.relation('page_views')}")} == {"app_id"}


# ----------------------------------------------------------------------------- (d)
def test_interval_rebuild_with_a_failing_first_batch_rebuilds_history_next_run(
    make_project: Callable[..., DbtProject], spark_sql: SparkSql
) -> None:
    project: DbtProject = make_project()
    schema = project.schema
    project.write_model("intervals_test/sources.yml", SOURCES_YML)
    project.write_model("intervals_test/daily_events", DAILY_EVENTS)
    spark_sql.create_table(f"{schema}.events", EVENTS, events_rows({"2024-01-01": 2, "2024-01-02": 3, "2024-01-03": 4}))
    now = {"spark_incremental__now": "2024-01-04 07:00:00"}
    project.run("run", "-s", "daily_events", vars=now)
    assert done_intervals(spark_sql, schema, "daily_events") == [["2024-01-01 00:00:00", "2024-01-04 00:00:00"]]

    # the rebuild's first batch fails: the table is new and empty, and so are the intervals
    result = project.run("run", "-s", "daily_events", "--full-refresh",
                         vars={**now, "fail_day": "2024-01-01"}, expect_success=False)
    assert "failing on purpose" in result.text() + str(result.exception)
    assert table(spark_sql, f"{schema}.daily_events") == []
    assert done_intervals(spark_sql, schema, "daily_events") == []

    # the next run processes every interval again
    result = project.run("run", "-s", "daily_events", vars=now)
    assert sum("daily_events: interval batch" in line for line in result.pkg_lines()) == 3, result.pkg_lines()
    assert table(spark_sql, f"{schema}.daily_events") == reference(spark_sql, schema, "2024-01-04")


# ----------------------------------------------------------------------------- refusal
KEPT_MODEL = """{{ config(materialized='managed_incremental', unique_key='id', full_refresh=false, PARTITION) }}

select 1 as id, 'a' as v
"""


def test_full_refresh_false_refuses_an_automatic_rebuild(make_project, spark_sql: SparkSql) -> None:
    project: DbtProject = make_project()
    project.write_model("kept", KEPT_MODEL.replace(", PARTITION", ""))
    project.run("run", "-s", "kept")
    project.write_model("kept", KEPT_MODEL.replace("PARTITION", "partition_by='v'"))
    result = project.run("run", "-s", "kept", expect_success=False)
    text = result.text() + str(result.exception)
    assert "model 'kept' must be rebuilt (full refresh: partition_by changed from" in text, text
    assert "full_refresh=false keeps its table; nothing was written" in text
    assert "remove full_refresh=false from the model's config" in text
    assert table(spark_sql, project.relation("kept")) == [(1, "a")]


# ----------------------------------------------------------------------------- every path
def test_a_run_table_rebuilt_after_the_listing_is_written_by_name(
        make_project: Callable[..., DbtProject], spark_sql: SparkSql) -> None:
    """Another run rebuilds `events_this_run` with two text columns swapped after this
    run's listing, which still says the table has this run's shape: the rewrite in place
    writes each value into its own column (`by name`), so the history equals one full run.
    A positional insert put event names in page_url and the other way round."""
    project = _project(make_project, spark_sql)
    project.run("run", vars=_now(datetime(2021, 1, 4)))
    relation = project.relation("spark_incremental_base_events_this_run")

    def rebuild_swapped(line: str) -> None:
        if "START sql" in line and f"{relation} " in line:
            columns = [row[0] for row in spark_sql.query(f"describe {relation}") if row[0] and not row[0].startswith("#")]
            swapped = {"event_name": "page_url", "page_url": "event_name"}
            spark_sql.execute(f"create table {relation}_swapped using parquet as select "
                              + ", ".join(swapped.get(name, name) for name in columns) + f" from {relation}")
            spark_sql.execute(f"drop table {relation}")
            spark_sql.execute(f"alter table {relation}_swapped rename to {relation}")

    result = project.run("run", vars=_now(datetime(2021, 1, 6)), on_line=rebuild_swapped)
    assert any(f"insert overwrite table {relation} by name" in line for line in result.debug_lines)
    _catch_up(project, 2)
    _assert_equals_one_full_run(make_project, spark_sql, project)


def _late_session(rows: list[tuple]) -> str:
    """A session whose events all lie in the 5 hours before the last event, not holding it:
    loaded late, it is older than last_success but inside the lookback window."""
    columns = list(gen.EVENT_COLUMNS)
    collected, session = columns.index("collector_tstamp"), columns.index("domain_sessionid")
    last = max(row[collected] for row in rows)
    spans: dict[str, list[datetime]] = {}
    for row in rows:
        if row[session] is not None:
            spans.setdefault(row[session], []).append(row[collected])
    for name, times in sorted(spans.items()):
        if min(times) >= last - timedelta(hours=5) and max(times) < last - timedelta(minutes=5):
            return name
    raise AssertionError("the generator's data has no session to load late")


def test_every_path_in_one_history_equals_one_full_run(
    make_project: Callable[..., DbtProject], spark_sql: SparkSql
) -> None:
    """Incremental runs interleaved with a --full-refresh of a derived model, a change
    description that forces a full refresh, a killed run, and a late load with nothing
    newer, then catch-up runs: every table equals one run over all the data."""
    columns = list(gen.EVENT_COLUMNS)
    session, loaded = columns.index("domain_sessionid"), columns.index("load_tstamp")
    rows = _rows()
    late = _late_session(rows)
    project = make_project(**BASE_VARS)
    spark_sql.create_table(project.relation("events"), gen.EVENT_COLUMNS, [r for r in rows if r[session] != late])

    _two_runs(project)
    project.run("run", "--full-refresh", "--select", "sessions", vars=_now(datetime(2021, 1, 6)))
    change = [{"table": "spark_incremental_base_events_this_run", "type": "ADD_ROWS"}]
    forced = project.run("run", vars={**_now(datetime(2021, 1, 6, 12)), "spark_incremental__changes": change})
    _line(forced, "page_views: full refresh: the change on spark_incremental_base_events_this_run has no scope")
    killed = project.run("run", expect_success=False,
                         vars={**_now(datetime(2021, 1, 6, 18)), "spark_incremental__fail_at": "after_write"})
    assert "stopped at 'after_write'" in killed.text()

    states = _catch_up(project, 5)
    assert states[-2:] == ["spark_incremental: [state 4]"] * 2, states
    # nothing newer than last_success arrives; the late session does, loaded after every
    # load so far (the load watermark)
    load_time = max(r[loaded] for r in rows) + timedelta(hours=1)
    late_rows = [r[:loaded] + (load_time,) + r[loaded + 1:] for r in rows if r[session] == late]
    spark_sql.insert_rows(project.relation("events"), gen.EVENT_COLUMNS, late_rows)
    result = project.run("run", vars=_now(load_time))
    _line(result, "no event after", "events loaded after the load watermark")
    _assert_equals_one_full_run(make_project, spark_sql, project)

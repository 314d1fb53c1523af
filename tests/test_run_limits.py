"""Run limits: the published vectors, the four states on real runs, the data gap."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any, Callable

import pytest

from benchmarks.metrics import SqlMetrics

from tests.harness.dbt import DbtProject
from tests.harness.sql import SparkSql

EVENT_COLUMNS = {
    "event_id": "string",
    "domain_sessionid": "string",
    "domain_userid": "string",
    "collector_tstamp": "timestamp",
    "dvce_created_tstamp": "timestamp",
    "dvce_sent_tstamp": "timestamp",
    "load_tstamp": "timestamp",
    "app_id": "string",
    "event_name": "string",
    "page_url": "string",
}
EVENT_COLUMNS_ORDER = list(EVENT_COLUMNS)

# (name, min_last_success, max_last_success, matched, expected) -> (lower, upper)
VECTORS = [
    ("empty", None, None, 0, 10, "2021-01-01 00:00:00", "2021-01-31 00:00:00"),
    ("new_models", "2021-03-01", "2021-03-01", 5, 10, "2021-01-01 00:00:00", "2021-01-31 00:00:00"),
    ("out_of_sync", "2021-03-01", "2021-03-05", 10, 10, "2021-02-28 18:00:00", "2021-03-05 00:00:00"),
    ("out_of_sync_far", "2021-03-01", "2021-05-01", 10, 10, "2021-02-28 18:00:00", "2021-03-31 00:00:00"),
    ("standard", "2021-03-01", "2021-03-01", 10, 10, "2021-02-28 18:00:00", "2021-03-31 00:00:00"),
]
# a gap: the window holds no new event, the first one after it is at first_event (the
# backfill counts from it; the lower limit stays): (name, ..., first_event) -> (lower, upper)
GAP_VECTORS = [
    ("empty_gap", None, None, 0, 10, "2021-03-01 12:00:00", "2021-01-01 00:00:00", "2021-03-31 12:00:00"),
    ("new_models_gap", "2021-03-01", "2021-06-01", 5, 10, "2021-03-01 12:00:00",
     "2021-01-01 00:00:00", "2021-03-31 12:00:00"),
    ("out_of_sync_gap", "2021-03-01", "2021-05-01", 10, 10, "2021-04-20 00:00:00",
     "2021-02-28 18:00:00", "2021-05-01 00:00:00"),
    ("standard_gap", "2021-03-01", "2021-03-01", 10, 10, "2021-05-10 08:00:00",
     "2021-02-28 18:00:00", "2021-06-09 08:00:00"),
    ("standard_gap_now", "2021-03-01", "2021-03-01", 10, 10, "2029-12-31 00:00:00",
     "2021-02-28 18:00:00", "2030-01-01 00:00:00"),
]


RUN_TABLES = ("spark_incremental_base_events_in_window", "spark_incremental_base_sessions_this_run",
              "spark_incremental_base_events_this_run")


def described(statements: list[dict[str, Any]]) -> set[str]:
    """The models that sent a `describe query` among a run's statements."""
    return {st["node"].rsplit(".", 1)[-1] for st in statements if st["sql"].lower().startswith("describe query")}


def event(event_id: str, session: str, ts: str) -> tuple:
    stamp = datetime.fromisoformat(ts)
    return (event_id, session, "user_" + session, stamp, stamp, stamp, stamp, "app", "page_view", "/home")


def manifest(project: DbtProject, spark_sql: SparkSql) -> dict[str, str]:
    rows = spark_sql.query(
        f"select model, date_format(last_success, 'yyyy-MM-dd HH:mm:ss') "
        f"from {project.schema}.spark_incremental_manifest where last_success is not null"
    )
    return {model: last_success for model, last_success in rows}


def state_lines(lines: list[str]) -> list[str]:
    return [line for line in lines if "[state " in line or "processing data between" in line]


def test_published_vectors(dbt_project: DbtProject) -> None:
    vectors = [
        {"name": n, "min_last_success": lo, "max_last_success": hi, "matched": m, "expected": e}
        for n, lo, hi, m, e, _, _ in VECTORS
    ] + [
        {"name": n, "min_last_success": lo, "max_last_success": hi, "matched": m, "expected": e, "first_event": f}
        for n, lo, hi, m, e, f, _, _ in GAP_VECTORS
    ]
    args = {
        "vectors": vectors,
        "start_date": "2021-01-01",
        "backfill_limit_days": 30,
        "lookback_window_hours": 6,
        "now": "2030-01-01 00:00:00",
    }
    result = dbt_project.run("run-operation", "evaluate_run_limits", "--args", json.dumps(args))
    found = {}
    for line in result.lines:
        if "run_limits_vector: " in line:
            payload = json.loads(line.split("run_limits_vector: ", 1)[1])
            found[payload["name"]] = (payload["lower_limit"], payload["upper_limit"])
    expected = {n: (lower, upper) for n, _, _, _, _, lower, upper in VECTORS}
    expected.update({n: (lower, upper) for n, _, _, _, _, _, lower, upper in GAP_VECTORS})
    assert found == expected


@pytest.fixture
def events_project(dbt_project: DbtProject, spark_sql: SparkSql) -> DbtProject:
    """Two tracked models over events spread across January 2021."""
    events = [
        event("e1", "s1", "2021-01-01 10:00:00"),
        event("e2", "s1", "2021-01-01 10:05:00"),
        event("e3", "s2", "2021-01-03 09:00:00"),
        event("e4", "s3", "2021-01-05 12:00:00"),
        event("e5", "s4", "2021-01-08 08:00:00"),
        event("e5", "s4", "2021-01-08 08:00:00"),  # duplicate event_id
    ]
    spark_sql.create_table(f"{dbt_project.schema}.events", EVENT_COLUMNS, events)
    dbt_project.default_vars.update(
        {
            "spark_incremental__start_date": "2021-01-01",
            "spark_incremental__backfill_limit_days": 3,
            "spark_incremental__now": "2021-02-01 00:00:00",
        }
    )
    dbt_project.write_model(
        "derived/extra_tracked.sql",
        "{{ config(materialized='table', tags=['spark_incremental']) }}\n"
        "select count(*) as n from {{ ref('spark_incremental_base_events_this_run') }}\n",
    )
    return dbt_project


def test_four_states(events_project: DbtProject, spark_sql: SparkSql) -> None:
    project = events_project
    project.remove_file("models/derived/extra_tracked.sql")

    # state 1: nothing in the manifest
    first = project.run("run")
    assert state_lines(first.pkg_lines()) == [
        "spark_incremental: [state 1] no data in manifest, processing data from start_date",
        "spark_incremental: processing data between '2021-01-01 00:00:00' and '2021-01-04 00:00:00'",
    ]
    after_first = manifest(project, spark_sql)
    assert len(after_first) >= 1 and "extra_tracked" not in after_first
    assert set(after_first.values()) == {"2021-01-03 09:00:00"}

    # state 2: a new tagged model appears
    project.write_model(
        "derived/extra_tracked.sql",
        "{{ config(materialized='table', tags=['spark_incremental']) }}\n"
        "select count(*) as n from {{ ref('spark_incremental_base_events_this_run') }}\n",
    )
    second = project.run("run")
    assert state_lines(second.pkg_lines()) == [
        "spark_incremental: [state 2] new incremental models extra_tracked, backfilling",
        "spark_incremental: processing data between '2021-01-01 00:00:00' and '2021-01-03 09:00:00'",
    ]
    after_second = manifest(project, spark_sql)
    assert after_second["extra_tracked"] == "2021-01-03 09:00:00"
    assert {k: v for k, v in after_second.items() if k != "extra_tracked"} == after_first

    # a failing tracked model keeps its manifest row: next run is state 3
    project.write_model(
        "derived/extra_tracked.sql",
        "{{ config(materialized='table', tags=['spark_incremental']) }}\n"
        "select count(*) as n from {{ ref('spark_incremental_base_events_this_run') }}\n"
        "where assert_true(false) is null\n",
    )
    third = project.run("run", expect_success=False)
    assert third.statuses["extra_tracked"] == "error"
    after_third = manifest(project, spark_sql)
    assert after_third["extra_tracked"] == "2021-01-03 09:00:00"
    others = {k: v for k, v in after_third.items() if k != "extra_tracked"}
    assert set(others.values()) == {"2021-01-05 12:00:00"}

    project.write_model(
        "derived/extra_tracked.sql",
        "{{ config(materialized='table', tags=['spark_incremental']) }}\n"
        "select count(*) as n from {{ ref('spark_incremental_base_events_this_run') }}\n",
    )
    fourth = project.run("run")
    assert state_lines(fourth.pkg_lines()) == [
        "spark_incremental: [state 3] incremental models out of sync, syncing",
        "spark_incremental: processing data between '2021-01-03 03:00:00' and '2021-01-05 12:00:00'",
    ]
    assert set(manifest(project, spark_sql).values()) == {"2021-01-05 12:00:00"}

    # state 4: standard run
    fifth = project.run("run")
    assert state_lines(fifth.pkg_lines()) == [
        "spark_incremental: [state 4] standard incremental run",
        "spark_incremental: processing data between '2021-01-05 06:00:00' and '2021-01-08 12:00:00'",
    ]
    assert set(manifest(project, spark_sql).values()) == {"2021-01-08 08:00:00"}


def test_limits_model_alone_changes_nothing(events_project: DbtProject, spark_sql: SparkSql) -> None:
    project = events_project
    project.run("run")
    current = f"{project.schema}.spark_incremental_manifest"
    before = spark_sql.table_rows(current)
    result = project.run("run", "--select", "spark_incremental_base_new_event_limits")
    assert "spark_incremental: [state 4] standard incremental run" in result.pkg_lines()
    assert spark_sql.table_rows(current) == before
    row = spark_sql.query_dicts(f"select * from {project.schema}.spark_incremental_base_new_event_limits")
    assert len(row) == 1 and row[0]["state"] == 4


def test_no_new_events_means_an_empty_window(
        events_project: DbtProject, spark_sql: SparkSql, spark_server: Any) -> None:
    """State 4 with nothing after last_success and nothing loaded since the load watermark:
    the window is empty and nothing is read or reprocessed. A late load inside the lookback
    window is processed by the next run, even with no newer event."""
    project = events_project
    for _ in range(3):  # catch up: backfill_limit_days = 3
        project.run("run")
    caught_up = manifest(project, spark_sql)
    assert set(caught_up.values()) == {"2021-01-08 08:00:00"}

    def rows(model: str) -> int:
        return int(spark_sql.scalar(f"select count(*) from {project.relation(model)}"))

    probe = SqlMetrics(spark_server.ui_url)
    mark = probe.mark()
    idle = project.run("run")
    statements = probe.reads_since(mark, project.schema, "events").statements
    # the manifest view, unchanged since the last run, is not created again
    manifest_view = f"create or replace view {project.schema}.spark_incremental_manifest "
    assert not [st for st in statements if st["sql"].lower().startswith(manifest_view.lower())], statements
    # the quarantine appends nothing, so it issues no statement (no view, describe, insert)
    assert not [st for st in statements if st["node"].endswith("spark_incremental_base_quarantined_sessions")]
    assert state_lines(idle.pkg_lines()) == [
        "spark_incremental: [state 4] standard incremental run",
        "spark_incremental: processing data between '2021-01-08 08:00:01' and '2021-01-08 08:00:01'",
    ]
    assert ("spark_incremental: no event after '2021-01-08 08:00:00' (the models' last_success); nothing loaded"
            " into the lookback window since the load watermark '2021-01-08 08:00:00.000000'"
            " (load_tstamp): nothing to process, every model skips its work") in idle.pkg_lines()
    # extra_tracked, a plain table, reads events_this_run: that one is rebuilt empty; the
    # other run tables, read only by the package's models, are kept as the last run left them
    this_run = "spark_incremental_base_events_this_run"
    assert rows(this_run) == 0
    assert [st for st in statements if st["node"].endswith(this_run)]
    kept = {model: rows(model) for model in RUN_TABLES if model != this_run}
    assert all(kept.values()), kept
    for model in kept:
        assert not [st for st in statements if st["node"].endswith(model)], model
    assert manifest(project, spark_sql) == caught_up
    # the managed models skip their whole run: no stage, no write, no state row
    for model in ("spark_incremental_base_sessions_lifecycle_manifest", "sessions", "page_views"):
        assert (f"spark_incremental: {model}: skipped: no new events in this run's window "
                "(skip_without_new_events)") in idle.pkg_lines()
    assert "spark_incremental: manifest: no event arrived since the last run; nothing to record" in idle.pkg_lines()
    assert spark_sql.scalar(f"select nothing_new from {project.relation('spark_incremental_base_new_event_limits')}") \
        in (True, "true")
    managed_rows = spark_sql.scalar(f"select count(*) from {project.relation('spark_incremental_manifest_log')} "
                                    "where record_type = 'managed'")
    # a second run with nothing new keeps the run tables: no statement for them (the md5 of
    # the empty one's SQL and the others' shape, table properties, are in dbt's listing)
    mark = probe.mark()
    project.run("run")
    statements = probe.reads_since(mark, project.schema, "events").statements
    for model in RUN_TABLES:
        assert not [st for st in statements if st["node"].endswith(model)], (model, statements)
    assert rows(this_run) == 0
    assert {model: rows(model) for model in kept} == kept
    assert spark_sql.scalar(f"select count(*) from {project.relation('spark_incremental_manifest_log')} "
                            "where record_type = 'managed'") == managed_rows

    # a late load inside the lookback window (an older session, loaded after the watermark):
    # the next run processes the lookback window although no event is newer than last_success
    events = f"{project.schema}.events"
    late = list(event("late", "s9", "2021-01-08 05:00:00"))
    late[EVENT_COLUMNS_ORDER.index("load_tstamp")] = datetime(2021, 1, 8, 9, 0)
    spark_sql.insert_rows(events, EVENT_COLUMNS, [tuple(late)])
    caught = project.run("run")
    assert state_lines(caught.pkg_lines())[1] == (
        "spark_incremental: processing data between '2021-01-08 02:00:00' and '2021-01-11 08:00:00'")
    assert any("events loaded after the load watermark '2021-01-08 08:00:00.000000' (load_tstamp)"
               " lie in the lookback window: processing it" in line for line in caught.pkg_lines())
    assert "late" in {row[0] for row in spark_sql.query(
        f"select event_id from {project.relation('spark_incremental_base_events_this_run')}")}
    assert "s9" in {row[0] for row in spark_sql.query(f"select session_identifier from {project.relation('sessions')}")}
    assert manifest(project, spark_sql) == caught_up  # last_success never moves backwards
    # the watermark moved: the next run with nothing new skips again
    again = project.run("run")
    assert rows("spark_incremental_base_events_this_run") == 0
    assert any("nothing loaded into the lookback window since the load watermark '2021-01-08 09:00:00.000000'"
               in line for line in again.pkg_lines())

    # a run with a new event: its window reaches back over the lookback
    spark_sql.insert_rows(events, EVENT_COLUMNS, [event("new", "s10", "2021-01-09 10:00:00")])
    mark = probe.mark()
    busy = project.run("run")
    statements = probe.reads_since(mark, project.schema, "events").statements
    # run tables of the same shape that a run with new events built are rewritten in place
    # (one insert overwrite); events_this_run, built empty by the last run, is dropped and
    # created (its empty_sql_md5 goes with it)
    for model in RUN_TABLES:
        sqls = [" ".join(st["sql"].split()).lower() for st in statements if st["node"].endswith(model)]
        relation = f"{project.schema}.{model}".lower()
        in_place = model != this_run
        # (a set: Spark 3.5 reports a create table as and its insert as two executions)
        writes = {sql.split(" (")[0].split(" using ")[0] for sql in sqls
                  if sql.startswith(("insert overwrite", "drop table", "create table"))}
        assert writes == ({f"insert overwrite table {relation} by name select * from"} if in_place
                          else {f"drop table if exists {relation}", f"create table {relation}"}), (model, sqls)
    # the window's newest session and load timestamps, which the end hook records, are read
    # with the sessions' time range in events_this_run's query: the end hook asks no query
    window_reads = [(st["node"].rsplit(".", 1)[-1], st["sql"][:60]) for st in statements
                    if any(name.lower().endswith(RUN_TABLES[0]) for name in st["tables"])]
    assert not [read for read in window_reads if "on-run-end" in read[0]], window_reads
    assert [read for read in window_reads if read[0] == this_run and "min(start_tstamp)" in read[1]], window_reads
    assert state_lines(busy.pkg_lines())[1] == (
        "spark_incremental: processing data between '2021-01-08 02:00:00' and '2021-01-11 08:00:00'")
    # the package's own managed models take their query's columns from the state of their
    # last run of the same shape (no describe query); the project's models describe theirs
    assert described(statements) == {"sessions", "page_views"}, described(statements)
    processed = {row[0] for row in spark_sql.query(
        f"select event_id from {project.relation('spark_incremental_base_events_this_run')}")}
    assert {"late", "new"} <= processed
    # the run tables are rewritten by every run and read back by it: no dictionary encoding,
    # kept by the rewrites in place
    for model in RUN_TABLES:
        assert "parquet.enable.dictionary=false" in spark_sql.storage_properties(project.relation(model)), model
    assert set(manifest(project, spark_sql).values()) == {"2021-01-09 10:00:00"}

    # a column added to the events table between two runs with nothing new: the run
    # tables the first one built empty are not kept with the old columns
    project.run("run")
    spark_sql.execute(f"alter table {events} add columns (page_title string)")
    project.run("run")
    for model in RUN_TABLES:
        if model != "spark_incremental_base_sessions_this_run":
            columns = [row[0] for row in spark_sql.query(f"describe table {project.relation(model)}")]
            assert "page_title" in columns, (model, columns)
        assert rows(model) == 0, model
    # the events table's new column changes the shape: the lifecycle manifest describes its
    # query again in the next run with new events, and records the columns for the runs after
    for event_id, stamp in (("newer", "2021-01-09 11:00:00"), ("newest", "2021-01-09 12:00:00")):
        spark_sql.insert_rows(events, EVENT_COLUMNS, [event(event_id, "s10", stamp)])
        mark = probe.mark()
        project.run("run")
        found = described(probe.reads_since(mark, project.schema, "events").statements)
        lifecycle = "spark_incremental_base_sessions_lifecycle_manifest"
        assert (lifecycle in found) == (event_id == "newer"), (event_id, found)


def test_no_op_keeps_the_run_tables_when_no_reader_uses_them(
        events_project: DbtProject, spark_sql: SparkSql, spark_server: Any,
        make_project: Callable[..., DbtProject]) -> None:
    """Every reader of the run tables skips when nothing is new (sessions and page_views:
    skip_without_new_events and the is_run_with_new_events filter): a run with nothing new
    keeps them as the last run with new events left them, with no statement, so it changes
    nothing the package keeps. A reader that would use their rows (a plain table without the
    filter) makes the next run with nothing new build the table it reads empty, and say why."""
    project = events_project
    project.remove_file("models/derived/extra_tracked.sql")
    # a reader that skips by its config alone, set from env_var() (text, 'True')
    project.write_model(
        "derived/text_skipper.sql",
        "{{ config(materialized='managed_incremental', unique_key='n',"
        " skip_without_new_events=env_var('SI_TEST_SKIP', 'True')) }}\n"
        "select count(*) as n from {{ ref('spark_incremental_base_events_this_run') }}\n",
    )
    for _ in range(3):  # catch up: backfill_limit_days = 3
        project.run("run")

    def contents() -> dict[str, list[Any]]:
        return {model: spark_sql.table_rows(project.relation(model)) for model in RUN_TABLES}

    before = contents()
    assert all(before.values()), before  # the last run processed events
    probe = SqlMetrics(spark_server.ui_url)
    mark = probe.mark()
    idle = project.run("run")
    statements = probe.reads_since(mark, project.schema, "events").statements
    assert any("nothing to process, every model skips its work" in line for line in idle.pkg_lines())
    for model in RUN_TABLES:
        assert not [st for st in statements if st["node"].endswith(model)], (model, statements)
    assert idle.text().count("kept: the last run's rows, nothing new and no reader runs") == len(RUN_TABLES)
    assert contents() == before
    assert ("spark_incremental: text_skipper: skipped: no new events in this run's window"
            " (skip_without_new_events)") in idle.pkg_lines()
    # a no-op of 13 statements: 8 connections' USE (listing, hooks, the limits model), the
    # listing, the events table's columns, the lock and its read, the nothing-new probe, the
    # limits view and the release
    assert len(statements) <= 13, [st["sql"][:80] for st in statements]

    # a plain table reading events_this_run: the next run with nothing new builds that table
    # empty (its other run tables are read only by the package's models: kept)
    project.write_model(
        "derived/plain_reader.sql",
        "{{ config(materialized='table') }}\n"
        "select count(*) as n from {{ ref('spark_incremental_base_events_this_run') }}\n",
    )
    plain = project.run("run")
    assert ("spark_incremental: spark_incremental_base_events_this_run: built empty (nothing new): read by"
            " plain_reader, which neither calls is_run_with_new_events() nor skips (skip_without_new_events)"
            ) in plain.pkg_lines()
    assert spark_sql.scalar(f"select n from {project.relation('plain_reader')}") == 0
    after = contents()
    assert after["spark_incremental_base_events_this_run"] == []
    assert {k: v for k, v in after.items() if k != "spark_incremental_base_events_this_run"} == {
        k: v for k, v in before.items() if k != "spark_incremental_base_events_this_run"}

    # a new event: processed as usual, whatever the run tables held
    spark_sql.insert_rows(f"{project.schema}.events", EVENT_COLUMNS, [event("new", "s10", "2021-01-09 10:00:00")])
    busy = project.run("run")
    assert state_lines(busy.pkg_lines())[1] == (
        "spark_incremental: processing data between '2021-01-08 02:00:00' and '2021-01-11 08:00:00'")
    assert {row[0] for row in spark_sql.query(
        f"select event_id from {project.relation('spark_incremental_base_events_this_run')}")} == {"e5", "new"}
    assert spark_sql.scalar(f"select n from {project.relation('plain_reader')}") == 2

    # after the runs with nothing new, the derived tables equal one full run over the same
    # events (sorted rows, every column)
    full_vars = {k: v for k, v in project.default_vars.items() if k != "spark_incremental__events_schema"}
    full = make_project(**{**full_vars, "spark_incremental__backfill_limit_days": 60})
    spark_sql.execute(f"create schema if not exists {full.schema}")
    spark_sql.execute(f"create table {full.schema}.events using parquet as select * from {project.schema}.events")
    full.run("run")
    for name in ("sessions", "page_views", "spark_incremental_base_sessions_lifecycle_manifest"):
        expected = spark_sql.table_rows(full.relation(name))
        assert expected, name
        assert spark_sql.table_rows(project.relation(name)) == expected, name


def test_data_gap_is_crossed(dbt_project: DbtProject, spark_sql: SparkSql) -> None:
    """No events for 40 days with backfill_limit_days = 30: one run crosses the gap (the
    window reaches 30 days past the first event after it; its lower limit stays)."""
    events = [
        event("a1", "s1", "2021-01-01 10:00:00"),
        event("a2", "s2", "2021-01-02 10:00:00"),
        event("b1", "s3", "2021-02-11 10:00:00"),  # 40 days later
        event("b2", "s3", "2021-02-11 10:30:00"),
    ]
    spark_sql.create_table(f"{dbt_project.schema}.events", EVENT_COLUMNS, events)
    dbt_project.default_vars.update(
        {
            "spark_incremental__start_date": "2021-01-01",
            "spark_incremental__backfill_limit_days": 30,
            "spark_incremental__now": "2021-06-01 00:00:00",
        }
    )
    windows = []
    for i in range(2):
        if i == 1:  # the previews show the window the run then takes (the same get_run_limits)
            for preview in ("spark_incremental.show_state", "spark_incremental.plan"):
                lines = dbt_project.run("run-operation", preview).lines
                assert any("state 4: events '2021-01-02 04:00:00' to '2021-03-13 10:00:00'" in line
                           for line in lines), (preview, lines)
        result = dbt_project.run("run")
        windows += state_lines(result.pkg_lines())
    assert windows == [
        "spark_incremental: [state 1] no data in manifest, processing data from start_date",
        "spark_incremental: processing data between '2021-01-01 00:00:00' and '2021-01-31 00:00:00'",
        # nothing after 01-02 10:00 within 30 days, but events after the window: the gap is skipped
        "spark_incremental: [state 4] standard incremental run; no event from '2021-01-02 10:00:00' to"
        " '2021-02-11 10:00:00' (a gap of 40 d 0 h): skipped, backfill_limit_days counted from the first"
        " event after it",
        "spark_incremental: processing data between '2021-01-02 04:00:00' and '2021-03-13 10:00:00'",
    ]
    assert set(manifest(dbt_project, spark_sql).values()) == {"2021-02-11 10:30:00"}
    # caught up: the next run has nothing new
    assert any("nothing to process" in line for line in dbt_project.run("run").pkg_lines())


def test_models_to_remove_backfills(events_project: DbtProject, spark_sql: SparkSql) -> None:
    project = events_project
    project.run("run")
    project.run("run")
    removed = "extra_tracked"
    # as an orchestrator passes it through env_var: YAML text of a list, with a misspelt name
    result = project.run("run", vars={"spark_incremental__models_to_remove": f"[{removed}, extra_trackd]"})
    assert any(f"removed from the manifest: {removed}, extra_trackd" in line for line in result.pkg_lines())
    assert any("spark_incremental__models_to_remove: 'extra_trackd' is not a tracked model" in line
               for line in result.lines), result.tail(30)
    assert not any(f"'{removed}' is not a tracked model" in line for line in result.lines)
    assert "spark_incremental: [state 2] new incremental models " + removed + ", backfilling" in result.pkg_lines()
    assert not any("still names" in line for line in result.lines), result.tail(30)
    # the var left set in the environment: the next run removes the backfilled model again, and says so
    again = project.run("run", vars={"spark_incremental__models_to_remove": removed})
    warnings = [line for line in again.lines if "spark_incremental__models_to_remove still names" in line]
    assert len(warnings) == 1 and f"'{removed}', which run " in warnings[0], again.tail(30)
    assert "Unset the var (it is meant for one run)" in warnings[0], warnings[0]

"""The events pipeline on an events table that shares no column name with Snowplow.

A Segment-like table (``message_id``, ``anonymous_id``, ``user_id``, ``session_id``,
``received_at``, ``sent_at``, ``original_timestamp``..., partitioned by an int ``event_date``
yyyymmdd) mapped with the column vars. Four days of events arrive one batch a day (a
session across midnight, an event loaded late inside the lookback window, a duplicated
message_id, one event sent too late, a user id that appears mid-session); four incremental
runs (the last a ``dbt build``, whose data tests pass: the event id tests follow the mapped
column) leave every derived table equal, row for row and column for column, to one full run
over the whole table. The int partition column is detected from its type and every scan of
the events table is pruned on it (explain of the compiled SQL); so are a 'yyyy-MM-dd'
string and a date partition column.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Any

import pytest

from tests.harness.dbt import DbtProject
from tests.harness.sql import SparkSql

COLUMNS = {
    "message_id": "string",
    "anonymous_id": "string",
    "user_id": "string",
    "session_id": "string",
    "event_type": "string",
    "context_page_path": "string",
    "received_at": "timestamp",
    "sent_at": "timestamp",
    "original_timestamp": "timestamp",
    "event_date": "int",  # partition column, yyyymmdd
}

VARS = {
    "spark_incremental__event_identifier": "message_id",
    "spark_incremental__session_identifier": "session_id",
    "spark_incremental__user_identifier": "user_id",
    "spark_incremental__session_timestamp": "received_at",
    "spark_incremental__device_created_timestamp": "original_timestamp",
    "spark_incremental__device_sent_timestamp": "sent_at",
    "spark_incremental__app_id_column": None,
    "spark_incremental__events_partition_column": "event_date",
    "spark_incremental__start_date": "2024-03-01",
}

SESSIONS_MODEL = """
{{
    config(
        materialized='managed_incremental',
        unique_key='session_identifier',
        partition_by='start_date',
        upsert_date_key='start_date',
        upsert_lookback_days=1,
        file_format='parquet',
        tags=['spark_incremental'],
        skip_without_new_events=true,
    )
}}

with

events as (
    select * from {{ ref('spark_incremental_base_events_this_run') }}
    where {{ spark_incremental.is_run_with_new_events(this.name) }}
),

final as (
    select
        session_identifier,
        max(user_identifier) as user_identifier,
        min(anonymous_id) as anonymous_id,
        min(received_at) as start_tstamp,
        max(received_at) as end_tstamp,
        count(*) as event_count,
        count_if(event_type = 'page') as page_count,
        min(named_struct('received_at', received_at, 'message_id', message_id, 'path', context_page_path)).path
            as landing_path,
        date_format(min(received_at), 'yyyy-MM-dd') as start_date
    from events
    group by session_identifier
)

select * from final
"""

EVENTS_MODEL = """
{{
    config(
        materialized='managed_incremental',
        unique_key='message_id',
        partition_by='event_day',
        upsert_date_key='event_day',
        upsert_lookback_days=1,
        file_format='parquet',
        tags=['spark_incremental'],
        skip_without_new_events=true,
    )
}}

with

events as (
    select * from {{ ref('spark_incremental_base_events_this_run') }}
    where {{ spark_incremental.is_run_with_new_events(this.name) }}
),

final as (
    select
        message_id,
        session_identifier,
        user_identifier,
        event_type,
        context_page_path,
        received_at,
        event_date,
        row_number() over (partition by session_identifier order by received_at, message_id)
            as event_index_in_session,
        date_format(received_at, 'yyyy-MM-dd') as event_day
    from events
)

select * from final
"""

DERIVED = ["segment_sessions", "segment_events", "spark_incremental_base_sessions_lifecycle_manifest"]
DAY0 = datetime(2024, 3, 1)
DAYS = 4


def _event(message_id: str, session: str, received: datetime, *, user: str | None = "u",
           path: str = "/", event_type: str = "page", sent_late: bool = False) -> dict[str, Any]:
    created = received - timedelta(days=5 if sent_late else 0, seconds=2)
    return {
        "message_id": message_id, "anonymous_id": "a_" + session, "user_id": user,
        "session_id": session, "event_type": event_type, "context_page_path": path,
        "received_at": received, "sent_at": received - timedelta(seconds=1),
        "original_timestamp": created, "event_date": int(received.strftime("%Y%m%d")),
    }


def batches() -> list[list[dict[str, Any]]]:
    """One batch of events a day: what the table holds after day d's load."""
    out: list[list[dict[str, Any]]] = []
    for d in range(DAYS):
        day = DAY0 + timedelta(days=d)
        at = lambda h, m: day + timedelta(hours=h, minutes=m)  # noqa: E731
        batch = [
            # a user id that appears mid-session (the first non-null by session timestamp wins)
            _event(f"m{d}a1", f"s{d}a", at(10, 0), user=None, path="/home"),
            _event(f"m{d}a2", f"s{d}a", at(10, 5), user=f"u{d}", path="/pricing"),
            _event(f"m{d}a3", f"s{d}a", at(10, 9), user=f"u{d}x", event_type="track", path="/pricing"),
            # a duplicated message_id (two copies, different content)
            _event(f"m{d}dup", f"s{d}a", at(10, 7), user=f"u{d}", path="/a"),
            _event(f"m{d}dup", f"s{d}a", at(10, 7), user=f"u{d}", path="/b"),
            # sent five days after it was created: dropped by the late-sent filter
            _event(f"m{d}late_sent", f"s{d}c", at(12, 0), sent_late=True),
            # a session across midnight: its second event arrives with the next day's batch
            _event(f"m{d}b1", f"s{d}b", at(23, 50), user=f"v{d}", path="/night"),
        ]
        if d > 0:
            prev = DAY0 + timedelta(days=d - 1)
            batch += [
                _event(f"m{d - 1}b2", f"s{d - 1}b", prev + timedelta(days=1, minutes=10), user=f"v{d - 1}"),
                # loaded late: received 22:00 the day before, inside the 6 h lookback
                _event(f"m{d - 1}loaded_late", f"s{d - 1}d", prev + timedelta(hours=22), user=None),
            ]
        out.append(batch)
    return out


def _project(make_project: Any, **extra: Any) -> DbtProject:
    project = make_project(**VARS, **extra)
    for path in ("models/derived/sessions.sql", "models/derived/page_views.sql", "models/derived/derived.yml"):
        project.remove_file(path)
    project.write_model("segment/segment_sessions", SESSIONS_MODEL)
    project.write_model("segment/segment_events", EVENTS_MODEL)
    return project


def _now(d: int) -> str:
    return (DAY0 + timedelta(days=d + 1, hours=1)).strftime("%Y-%m-%d %H:%M:%S")


def _pruned_scans(spark_sql: SparkSql, sql: str, relation: str) -> list[str]:
    explain = "\n".join(str(row[0]) for row in spark_sql.query(f"explain formatted {sql}"))
    sections = re.split(r"\n(?=\(\d+\) )", explain)
    scans = [s for s in sections if re.match(rf"\(\d+\) Scan \w+ (?:\S+\.)?{re.escape(relation)}\s*$",
                                             s.splitlines()[0] if s else "", re.I)]
    assert scans, f"no scan of {relation}:\n{explain}"
    return [s for s in scans if "event_date" not in (re.search(r"PartitionFilters: \[(.*?)\]", s) or ["", ""])[1]]


def test_incremental_runs_equal_one_full_run(make_project: Any, spark_sql: SparkSql) -> None:
    incremental = _project(make_project)
    events = f"{incremental.schema}.events"
    spark_sql.create_table(events, COLUMNS, [], partitioned_by=["event_date"])
    loaded = batches()
    for d, batch in enumerate(loaded):
        spark_sql.insert_rows(events, COLUMNS, batch)
        # the last day builds: the package's data tests run on this table too (the event id
        # tests follow spark_incremental__event_identifier: message_id, not event_id)
        command = "build" if d == DAYS - 1 else "run"
        result = incremental.run(command, vars={"spark_incremental__now": _now(d)})
        assert all(status in ("success", "pass") for status in result.statuses.values()), result.statuses
        if d == 0:
            assert "spark_incremental: [state 1]" in " ".join(result.pkg_lines())
    id_tests = {name: status for name, status in result.statuses.items() if "event_identifier" in name}
    assert sorted(id_tests.values()) == ["pass", "pass"], result.statuses

    # the int yyyymmdd partition column, detected from its type, prunes every scan
    compiled = incremental.run("compile", "--select", "spark_incremental_base_events_in_window",
                               "spark_incremental_base_events_this_run",
                               vars={"spark_incremental__now": _now(DAYS)})
    for node in compiled.result.results:
        sql = node.node.compiled_code
        if events not in sql:
            continue
        assert re.search(r"`event_date` >= \d{8}\b", sql), sql
        spark_sql.reconnect()
        assert _pruned_scans(spark_sql, sql, events) == [], node.node.name

    # one full run over the whole table, in a fresh project reading the same events table
    full = _project(make_project, spark_incremental__events_schema=incremental.schema)
    full.run("run", vars={"spark_incremental__now": _now(DAYS - 1)})

    for name in DERIVED:
        got = spark_sql.table_rows(incremental.relation(name))
        want = spark_sql.table_rows(full.relation(name))
        assert got == want, f"{name}: incremental\n{got}\n!= full\n{want}"

    sessions = {row[0]: row for row in spark_sql.table_rows(full.relation("segment_sessions"))}
    # what the rules kept: 4 daytime sessions, 4 across midnight (the last still open),
    # 3 loaded-late sessions; the late-sent events never start a session
    assert sorted(sessions) == sorted([f"s{d}a" for d in range(DAYS)] + [f"s{d}b" for d in range(DAYS)]
                                      + [f"s{d}d" for d in range(DAYS - 1)])
    assert sessions["s0a"][1] == "u0" and sessions["s0a"][5] == 4  # the session's user, duplicate kept once
    assert sessions["s0b"][5] == 2  # both sides of midnight


@pytest.mark.parametrize(
    ("column_type", "literal"),
    # CI runs date; make test runs both
    [pytest.param("string", r"'\d{4}-\d{2}-\d{2}'", marks=pytest.mark.slow), ("date", r"date'\d{4}-\d{2}-\d{2}'")],
)
def test_string_and_date_partitions_are_detected_and_pruned(
        make_project: Any, spark_sql: SparkSql, column_type: str, literal: str) -> None:
    """The other two forms of the partition column: detected from the type, compared with a
    literal of that form, and Spark's plan prunes on it."""
    project = _project(make_project)
    events = f"{project.schema}.events"
    rows = [{**row, "event_date": row["received_at"].strftime("%Y-%m-%d")} for batch in batches() for row in batch]
    spark_sql.create_table(events, {**COLUMNS, "event_date": column_type}, rows, partitioned_by=["event_date"])
    compiled = project.run("compile", "--select", "spark_incremental_base_events_in_window",
                           vars={"spark_incremental__now": _now(1)})
    sql = compiled.result.results[0].node.compiled_code
    assert re.search(rf"`event_date` >= {literal}", sql), sql
    spark_sql.reconnect()
    assert _pruned_scans(spark_sql, sql, events) == []

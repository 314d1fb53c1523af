"""Fault and bad-input suite: nothing lost, nothing counted twice, every bad input named.

Each test is a scenario of docs/reliability.md. The reference for "correct" is the same
pipeline run incrementally without faults, or one run over all the data, as each test says.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Callable

import pytest

import tests.generator as gen
from tests.harness.dbt import DbtProject, DbtResult
from tests.harness.spark import ThriftServer
from tests.harness.sql import SparkSql
from tests.test_sessions import BASE_VARS, _assert_consistent, _create_events, _events_table, _ts

BATCHES = gen.generate().batches[:3]
LOCK_HELD = "holds the manifest lock; this run changed nothing"
LOCK_MODEL = "__spark_incremental_run_lock__"

HOOKS_WITH_PAUSE_AT_END = (
    "on-run-end:\n"
    '  - "{{ test_pause() }}"\n'
    '  - "{{ spark_incremental.update_manifest() }}"\n'
)
HOOKS_WITH_PAUSE_AT_START = (
    "on-run-start:\n"
    '  - "{{ spark_incremental.start_run() }}"\n'
    '  - "{{ test_pause() }}"\n'
)


# ----------------------------------------------------------------------------- helpers
def new_events_project(make_project: Callable[..., DbtProject], spark_sql: SparkSql, batches: int) -> DbtProject:
    project = make_project(**BASE_VARS)
    _create_events(spark_sql, project, [])
    for batch in BATCHES[:batches]:
        spark_sql.insert_rows(_events_table(project), gen.EVENT_COLUMNS, batch.rows())
    return project


def now_of(batch: int) -> dict[str, str]:
    return {"spark_incremental__now": _ts(BATCHES[batch].load_tstamp)}


def derived(spark_sql: SparkSql, project: DbtProject) -> dict[str, list[tuple]]:
    return {
        name: spark_sql.table_rows(project.relation(name))
        for name in ("sessions", "page_views", "spark_incremental_base_sessions_lifecycle_manifest")
    }


def manifest_state(spark_sql: SparkSql, project: DbtProject) -> dict[str, Any]:
    rows = spark_sql.query(
        "select model, date_format(last_success, 'yyyy-MM-dd HH:mm:ss') "
        f"from {project.relation('spark_incremental_manifest')} where last_success is not null"
    )
    return dict(rows)


def log_row_count(spark_sql: SparkSql, project: DbtProject) -> int:
    return int(spark_sql.scalar(f"select count(*) from {project.relation('spark_incremental_manifest_log')}"))


def _lock_stamp(minutes_ago: float) -> str:
    now = datetime.now(timezone.utc).replace(tzinfo=None)
    return (now - timedelta(minutes=minutes_ago)).strftime("%Y-%m-%d %H:%M:%S.%f")


def write_lock_rows(spark_sql: SparkSql, project: DbtProject, invocation: str, record_type: str,
                     minutes_ago: list[float], writer: str | None = None) -> None:
    """Rows of another run: one per age (its lock, then its heartbeats), or its unlock;
    written by that run, or by the invocation `writer` (a run that took its lock over)."""
    for age in minutes_ago:
        batch_id = f"test-{invocation}-{record_type}-{age}"
        spark_sql.execute(
            f"insert into {project.relation('spark_incremental_manifest_log')} partition (batch_id = '{batch_id}') "
            f"select '{LOCK_MODEL}', '{record_type}', cast(null as timestamp), cast(null as string), "
            "cast(null as timestamp), cast(null as string), cast(null as string), "
            f"'{invocation}', 'written by the test', '{writer or invocation}', timestamp'{_lock_stamp(age)}'"
        )


def open_locks(spark_sql: SparkSql, project: DbtProject) -> list[str]:
    """Invocations whose lock has no 'unlock' row in the log."""
    rows = spark_sql.query(
        f"select state from {project.relation('spark_incremental_manifest_log')} where model = '{LOCK_MODEL}' "
        "group by state having max(case when record_type = 'unlock' then 1 else 0 end) = 0 order by state"
    )
    return [row[0] for row in rows]


def set_hooks(project: DbtProject, old: str, new: str) -> None:
    text = project.read_file("dbt_project.yml")
    assert old in text, text
    project.write_file("dbt_project.yml", text.replace(old, new))


def wait_for(proc: subprocess.Popen, project: DbtProject, marker: str, timeout_s: float = 240) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if marker in project.subprocess_output(proc):
            return
        if proc.poll() is not None:
            raise AssertionError(f"dbt ended before {marker!r}:\n{project.subprocess_output(proc)[-3000:]}")
        time.sleep(0.05)
    raise AssertionError(f"no {marker!r} within {timeout_s}s:\n{project.subprocess_output(proc)[-3000:]}")


def kill(proc: subprocess.Popen) -> None:
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)


_REFERENCES: dict[int, dict[str, list[tuple]]] = {}


def incremental_reference(make_project: Callable[..., DbtProject], spark_sql: SparkSql, runs: int) -> dict:
    """The same batches, one fault-free incremental run after each (built once per session)."""
    if runs not in _REFERENCES:
        project = make_project(**BASE_VARS)
        _create_events(spark_sql, project, [])
        for batch in range(runs):
            spark_sql.insert_rows(_events_table(project), gen.EVENT_COLUMNS, BATCHES[batch].rows())
            project.run("run", vars=now_of(batch))
        _REFERENCES[runs] = derived(spark_sql, project)
    return _REFERENCES[runs]


# ----------------------------------------------------------------------------- scenarios
def test_failed_model_keeps_its_manifest_row_and_retry_then_sync_equals_a_clean_run(
    make_project: Callable[..., DbtProject], spark_sql: SparkSql
) -> None:
    """1. A tracked model errors: its row does not move. The orchestrator calls `dbt retry`
    (only the failed model, without the base chain: its progress is not recorded, and the
    log says why); the next `dbt run` is state 3; then the tables equal a fault-free run."""
    project = make_project(**BASE_VARS)
    _create_events(spark_sql, project, [])
    spark_sql.insert_rows(_events_table(project), gen.EVENT_COLUMNS, BATCHES[0].rows())
    project.run("run", vars=now_of(0))
    before = manifest_state(spark_sql, project)

    spark_sql.insert_rows(_events_table(project), gen.EVENT_COLUMNS, BATCHES[1].rows())
    good_sql = project.read_file("models/derived/page_views.sql")
    project.write_model("derived/page_views.sql", good_sql.replace(
        "select * from final", "select * from final where assert_true(false) is null"))
    failed = project.run("run", vars=now_of(1), expect_success=False)
    assert failed.statuses["page_views"] == "error"
    after_failure = manifest_state(spark_sql, project)
    assert after_failure["page_views"] == before["page_views"]
    assert after_failure["sessions"] > before["sessions"]

    project.write_model("derived/page_views.sql", good_sql)
    # the retry takes the run lock as the run it repeats does (dbt replays that command)
    write_lock_rows(spark_sql, project, "long-run", "lock", [3])
    refused = project.run("retry", vars=now_of(1), expect_success=False)
    assert any(LOCK_HELD in line and "invocation long-run" in line for line in refused.lines), refused.tail()
    assert manifest_state(spark_sql, project) == after_failure
    write_lock_rows(spark_sql, project, "long-run", "unlock", [0])
    retried = project.run("retry", vars=now_of(1))
    assert {name for name in retried.statuses if "-on-run-" not in name} == {"page_views"}, retried.statuses
    assert any("ran without the whole base chain" in line for line in retried.lines), retried.tail()
    assert manifest_state(spark_sql, project) == after_failure

    synced = project.run("run", vars=now_of(1))
    assert "spark_incremental: [state 3] incremental models out of sync, syncing" in synced.pkg_lines()
    assert open_locks(spark_sql, project) == []
    _assert_consistent(spark_sql, project)
    assert derived(spark_sql, project) == incremental_reference(make_project, spark_sql, runs=2)


@pytest.mark.slow  # CI: test_write_layer kills each write step (the 3.5 step), test_every_path_in_one_history stops a run after a write; make test runs this too
def test_killed_before_the_hook_reprocesses_the_window_without_duplicates(
    make_project: Callable[..., DbtProject], spark_sql: SparkSql
) -> None:
    """2. SIGKILL after the models, before update_manifest: the next run redoes the window."""
    project = new_events_project(make_project, spark_sql, batches=2)
    project.run("run", vars=now_of(0))
    set_hooks(project, 'on-run-end:\n  - "{{ spark_incremental.update_manifest() }}"\n', HOOKS_WITH_PAUSE_AT_END)
    before = manifest_state(spark_sql, project)

    proc = project.run_subprocess("run", vars={**now_of(1), "test_pause": True})
    wait_for(proc, project, "test_pause: started")
    kill(proc)
    assert manifest_state(spark_sql, project) == before  # the hook never ran

    # the killed run still holds the lock: the next run says so and changes nothing
    refused = project.run("run", vars=now_of(1), expect_success=False)
    assert any(LOCK_HELD in line for line in refused.lines)
    rerun = project.run("run", vars={**now_of(1), "spark_incremental__force_unlock": True})
    assert "spark_incremental: force_unlock: released 1 lock(s)" in rerun.pkg_lines()
    _assert_consistent(spark_sql, project)
    assert derived(spark_sql, project) == incremental_reference(make_project, spark_sql, runs=2)


@pytest.mark.slow  # CI: test_write_layer kills each write step (the 3.5 step); make test runs this too
def test_killed_while_the_manifest_is_written_keeps_old_or_new_rows(
    make_project: Callable[..., DbtProject], spark_sql: SparkSql
) -> None:
    """3. Kills at several points of the hook (with compaction on every run): the current
    state is the old one or the new one, never less; the log never shrinks below it."""
    project = new_events_project(make_project, spark_sql, batches=3)
    project.default_vars["spark_incremental__manifest_compact_after"] = 0
    project.default_vars["spark_incremental__force_unlock"] = True
    project.run("run", vars=now_of(0))
    states = [manifest_state(spark_sql, project)]
    for attempt, delay_s in enumerate([0.0, 0.4, 0.8, 1.5, 2.5]):
        batch = 1 + attempt % 2
        proc = project.run_subprocess("run", vars=now_of(batch))
        wait_for(proc, project, "on-run-end.0 ")
        time.sleep(delay_s)
        if proc.poll() is None:
            kill(proc)
        state = manifest_state(spark_sql, project)
        assert state and all(state[m] >= states[-1][m] for m in states[-1]), (delay_s, state, states[-1])
        states.append(state)
    # and a normal run afterwards catches up cleanly
    project.run("run", vars=now_of(2))
    _assert_consistent(spark_sql, project)


@pytest.mark.slow  # CI: test_write_layer kills each write step (the 3.5 step), test_every_path_in_one_history stops a run after a write; make test runs this too
def test_thrift_server_dies_mid_run_then_recovers(
    make_project: Callable[..., DbtProject], tmp_path: Path
) -> None:
    """4. The server dies during the run: dbt fails clearly; after a restart the next run
    recovers (own server: the session server must not die)."""
    server = ThriftServer.start(tmp_path / "own-server")
    try:
        own_sql = SparkSql("127.0.0.1", server.port)
        project = make_project(**BASE_VARS)
        project.port = server.port
        _create_events(own_sql, project, [])
        own_sql.insert_rows(_events_table(project), gen.EVENT_COLUMNS, BATCHES[0].rows())
        proc = project.run_subprocess("run", vars=now_of(0))
        wait_for(proc, project, "spark_incremental_base_sessions_lifecycle_manifest ")
        server.kill()
        proc.wait(timeout=300)
        output = project.subprocess_output(proc)
        assert proc.returncode != 0
        assert "Connection refused" in output or "TTransportException" in output or "Database Error" in output

        server.restart()
        own_sql = SparkSql("127.0.0.1", server.port)
        project.run("run", vars={**now_of(0), "spark_incremental__force_unlock": True})
        assert manifest_state(own_sql, project)
        _assert_consistent(own_sql, project)
    finally:
        server.stop()


@pytest.mark.slow  # CI: test_limits_model_alone_changes_nothing and the no-op runs of test_run_limits run a window again; make test runs this too
def test_same_window_twice_changes_nothing(make_project: Callable[..., DbtProject], spark_sql: SparkSql) -> None:
    """5. No new data, same clock: identical tables, no duplicates, manifest unchanged."""
    project = new_events_project(make_project, spark_sql, batches=1)
    # a backfill limit long enough for the first run to catch up with now
    project.default_vars["spark_incremental__backfill_limit_days"] = 30
    project.run("run", vars=now_of(0))
    tables, state = derived(spark_sql, project), manifest_state(spark_sql, project)
    project.run("run", vars=now_of(0))
    assert derived(spark_sql, project) == tables
    assert manifest_state(spark_sql, project) == state
    _assert_consistent(spark_sql, project)


@pytest.mark.slow  # CI: test_lock.py::test_two_runs_started_together_exactly_one_proceeds (3.5 and cluster steps); make test runs this too
def test_second_concurrent_run_is_refused(make_project: Callable[..., DbtProject], spark_sql: SparkSql) -> None:
    """6. Two runs at once: the second stops before any model, naming the first."""
    project = new_events_project(make_project, spark_sql, batches=1)
    set_hooks(project, 'on-run-start:\n  - "{{ spark_incremental.start_run() }}"\n', HOOKS_WITH_PAUSE_AT_START)
    release = project.relation("test_pause_release")
    spark_sql.execute(f"create table {release} (released int) using parquet")
    first = project.run_subprocess("run", vars={**now_of(0), "test_pause": True, "test_pause_release": release})
    wait_for(first, project, "test_pause: started")
    second = project.run("run", vars=now_of(0), expect_success=False)
    assert any(LOCK_HELD in line for line in second.lines), second.tail()
    assert not any(status == "success" for status in second.statuses.values())
    spark_sql.execute(f"insert into {release} values (1)")  # the first run goes on
    assert first.wait(timeout=600) == 0, project.subprocess_output(first)[-3000:]
    # the first run's work is whole, and the lock is free again
    _assert_consistent(spark_sql, project)
    project.run("run", vars=now_of(0))


# CI: test_every_path_in_one_history runs --full-refresh without allow_refresh; make test runs both
@pytest.mark.parametrize("allow_refresh", [pytest.param(False, marks=pytest.mark.slow), True])
def test_full_refresh_and_the_manifest(
    make_project: Callable[..., DbtProject], spark_sql: SparkSql, allow_refresh: bool
) -> None:
    """7. --full-refresh: the manifest log and the lifecycle manifest kept unless
    allow_refresh (then rebuilt: state 1); the derived models, fed by one window, are
    built empty and forgotten, so the next runs backfill them (tests/test_rebuilds.py).
    A rebuilt log keeps the run's own lock: a full refresh that runs longer than a third
    of lock_timeout_minutes (a base model's hook sleeps 21 s of a 1-minute timeout) still
    finds it at its next model and at its end (it used to stop there, as if another run
    had taken the lock over, which the bench's 5.5-minute full refresh did)."""
    project = new_events_project(make_project, spark_sql, batches=2)
    project.run("run", vars=now_of(0))
    project.run("run", vars=now_of(1))
    assert set(manifest_state(spark_sql, project)) == {"sessions", "page_views"}
    slow: dict[str, Any] = {}
    if allow_refresh:
        project.write_file("macros/test_slow_hook.sql", SLOW_HOOK_MACRO)
        project.write_file("dbt_project.yml", project.read_file("dbt_project.yml") + SLOW_BASE_MODEL)
        slow = {"spark_incremental__lock_timeout_minutes": "1", "test_slow_at": ["sessions_this_run"]}
    result = project.run("run", "--full-refresh",
                         vars={**now_of(1), "spark_incremental__allow_refresh": allow_refresh, **slow})
    if allow_refresh:
        assert "spark_incremental: [state 1] no data in manifest, processing data from start_date" in result.pkg_lines()
        assert any(line.endswith("keeping the open run lock") for line in result.pkg_lines()), result.pkg_lines()
        assert set(manifest_state(spark_sql, project)) == {"sessions", "page_views"}
        lock_rows = [tuple(row) for row in spark_sql.query(
            f"select state, record_type, action from {project.relation('spark_incremental_manifest_log')}"
            f" where model = '{LOCK_MODEL}' order by written_at")]
        # the run's lock, kept through the rebuild with its first stamp (no other run held
        # one), a heartbeat after the sleep, then its release at the end
        assert len({row[0] for row in lock_rows}) == 1, lock_rows
        assert [row[1:] for row in lock_rows] == [
            ("lock", "kept through a rebuild of the log (lock taken)"),
            ("lock", "heartbeat"),
            ("unlock", "run ended"),
        ], lock_rows
        assert open_locks(spark_sql, project) == []
    else:
        assert "spark_incremental: [state 4] standard incremental run" in result.pkg_lines()
        assert manifest_state(spark_sql, project) == {}
        for name in ("sessions", "page_views"):
            assert any(f"{name}: full refresh: --full-refresh: removed from the manifest: {name}." in line
                       for line in result.pkg_lines()), name
    _assert_consistent(spark_sql, project)


def test_empty_events_table_runs_and_records_nothing(
    make_project: Callable[..., DbtProject], spark_sql: SparkSql
) -> None:
    """8. An empty events table: the run succeeds, processes nothing, records nothing."""
    project = new_events_project(make_project, spark_sql, batches=0)
    result = project.run("run", vars=now_of(0))
    assert ("spark_incremental: manifest: no event newer than what the models have processed, and none past the"
            " window: nothing to record") in result.pkg_lines()
    assert manifest_state(spark_sql, project) == {}
    assert spark_sql.scalar(f"select count(*) from {project.relation('sessions')}") == 0


def test_future_events_do_not_push_last_success_past_now(
    make_project: Callable[..., DbtProject], spark_sql: SparkSql
) -> None:
    """9. Clock skew: events stamped in the future never move last_success past now."""
    project = new_events_project(make_project, spark_sql, batches=1)
    now = BATCHES[0].load_tstamp
    future = [
        gen.Event(f"future-{i}", "website", "page_view", "future-session", "future-user", "/",
                  now + timedelta(days=20, minutes=i), now, now, now)
        for i in range(3)
    ]
    spark_sql.insert_rows(_events_table(project), gen.EVENT_COLUMNS, [e.row() for e in future])
    project.run("run", vars={**now_of(0), "spark_incremental__backfill_limit_days": 40})
    assert all(value <= _ts(now) for value in manifest_state(spark_sql, project).values())


@pytest.mark.slow  # CI: test_lock's compaction and every run's own compaction check; make test runs this too
def test_compaction_keeps_the_state(make_project: Callable[..., DbtProject], spark_sql: SparkSql) -> None:
    """14. Compaction rewrites nothing in place and keeps the current state."""
    project = new_events_project(make_project, spark_sql, batches=2)
    project.run("run", vars=now_of(0))
    project.run("run", vars=now_of(1))
    state = manifest_state(spark_sql, project)
    partitions = len(spark_sql.query(f"show partitions {project.relation('spark_incremental_manifest_log')}"))
    assert partitions >= 2
    result = project.run("run", vars={**now_of(1), "spark_incremental__manifest_compact_after": 1})
    assert any("manifest log compacted" in line for line in result.pkg_lines())
    assert len(spark_sql.query(f"show partitions {project.relation('spark_incremental_manifest_log')}")) == 1
    assert manifest_state(spark_sql, project) == state


def test_partial_selection_records_nothing(make_project: Callable[..., DbtProject], spark_sql: SparkSql) -> None:
    """15. A tracked model run without the base models, or with part of the base chain
    excluded: warned, naming what did not run; manifest unchanged."""
    project = new_events_project(make_project, spark_sql, batches=2)
    project.run("run", vars=now_of(0))
    state = manifest_state(spark_sql, project)
    result = project.run("run", "--select", "sessions", vars=now_of(1))
    assert any("ran without the whole base chain" in line and "spark_incremental_base_events_this_run" in line
               for line in result.lines)
    assert manifest_state(spark_sql, project) == state
    result = project.run("run", "--exclude", "spark_incremental_base_sessions_lifecycle_manifest", vars=now_of(1))
    assert any("ran without the whole base chain" in line
               and "not successful: spark_incremental_base_sessions_lifecycle_manifest)" in line
               for line in result.lines), result.tail()
    assert manifest_state(spark_sql, project) == state


# a hook that sleeps 21 s in the models the var test_slow_at lists (a third of a 1-minute
# lock timeout is 20 s), and does nothing elsewhere: a pre-hook of a base model (the next
# model checks the lock), a post-hook of the last tracked model (after its own check: the
# end hook checks), a pre-hook of a project model after the package's (the next project
# model's keep_run_lock hook checks). With test_take_over set, a second hook then writes what a run that took
# the lock over writes: an 'unlock' row for this run's invocation (at the end of the sleep,
# so the run's own check before the model has passed)
SLOW_HOOK_MACRO = """{% macro test_slow_hook(model_name) -%}
  {%- if model_name in var('test_slow_at', []) -%}
    select reflect('java.lang.Thread', 'sleep', cast(21000 as bigint))
  {%- else -%}
    select 1
  {%- endif -%}
{%- endmacro %}

{% macro test_take_over_hook(model_name) -%}
  {%- if execute and model_name in var('test_slow_at', []) and var('test_take_over', false) -%}
    insert into {{ spark_incremental.manifest_log_relation() }} partition (batch_id = 'test-take-over')
    select '""" + LOCK_MODEL + """', 'unlock', cast(null as timestamp), cast(null as string),
        cast(null as timestamp), cast(null as string), cast(null as string),
        '{{ invocation_id }}', 'written by the test', 'taking-over-run', current_timestamp()
  {%- else -%}
    select 1
  {%- endif -%}
{%- endmacro %}
"""
SLOW_MODELS = """
models:
  spark_incremental:
    base:
      spark_incremental_base_sessions_this_run:
        +pre-hook:
          - "{{ test_slow_hook('sessions_this_run') }}"
          - "{{ test_take_over_hook('sessions_this_run') }}"
  spark_incremental_integration_tests:
    derived:
      sessions:
        +post-hook:
          - "{{ test_slow_hook('sessions') }}"
          - "{{ test_take_over_hook('sessions') }}"
    marts:
      +materialized: view
      +pre-hook: "{{ spark_incremental.keep_run_lock() }}"
      slow_mart:
        +pre-hook: "{{ test_slow_hook('slow_mart') }}"
"""
# the slow hook in a base model only
SLOW_BASE_MODEL = """
models:
  spark_incremental:
    base:
      spark_incremental_base_sessions_this_run:
        +pre-hook: "{{ test_slow_hook('sessions_this_run') }}"
"""
# the slow hook as a post-hook of sessions
SLOW_SESSIONS = """
models:
  spark_incremental_integration_tests:
    derived:
      sessions:
        +post-hook: "{{ test_slow_hook('sessions') }}"
"""
# project models after the package's, keeping the lock alive with the package's hook
MARTS = {
    "marts/slow_mart": "select session_identifier from {{ ref('sessions') }}\n",
    "marts/mart_after": "select count(*) as sessions from {{ ref('slow_mart') }}\n",
}


def test_a_run_whose_lock_is_taken_over_while_it_works_stops_and_records_only_what_finished_before(
    make_project: Callable[..., DbtProject], spark_sql: SparkSql
) -> None:
    """41. A statement longer than lock_timeout_minutes lets the next run take the lock over
    (it sees the lock silent). Here a model's hook sleeps past a third of the timeout and a
    second hook then writes the 'unlock' row a run taking the lock over writes:
    - in a base model: the slow run's next model reads the locks, finds its lock released,
      quotes the row and stops; every later model fails without another read; its end
      records nothing (the base chain did not finish before the release);
    - in the last tracked model: the end hook finds the lock released and records only the
      models that finished before the release (a run whose project models outlast the
      timeout after the package's still moves the manifest), then fails;
    - nobody takes the lock over (the hook sleeps in the base model again, and in a project
      model after the package's): the run goes on, warning twice that a model came close and
      naming the timeout it needs; its lock rows are a third of the timeout apart or more
      (a heartbeat at every model past a third of the timeout used to add one per model),
      with one after each sleep, the second from a project model's keep_run_lock hook; and
      the tables equal a fault-free run."""
    from dbt_common.invocation import get_invocation_id

    project = new_events_project(make_project, spark_sql, batches=2)
    project.run("run", vars=now_of(0))
    project.write_file("macros/test_slow_hook.sql", SLOW_HOOK_MACRO)
    project.write_file("dbt_project.yml", project.read_file("dbt_project.yml") + SLOW_MODELS)
    for path, sql in MARTS.items():
        project.write_model(path, sql)
    before = manifest_state(spark_sql, project)

    started: dict[str, float] = {}  # the last slow run's models: when each started (epoch s)

    def slow_run(models: list[str], take_over: bool) -> tuple[DbtResult, str]:
        invocations: list[str] = []
        started.clear()

        def on_line(line: str) -> None:
            if not invocations and "START" in line:
                invocations.append(get_invocation_id())
            found = re.search(r"START sql .*\.(\w+) ", line)
            if found:
                started[found.group(1)] = time.time()

        result = project.run("run", vars={**now_of(1), "spark_incremental__lock_timeout_minutes": "1",
                                          "test_slow_at": [m.replace("spark_incremental_base_", "") for m in models],
                                          "test_take_over": take_over},
                             expect_success=not take_over, on_line=on_line)
        return result, invocations[0]

    lost, invocation = slow_run(["spark_incremental_base_sessions_this_run"], take_over=True)
    stops = [line for line in lost.lines if f"this run's lock on the manifest (invocation {invocation})" in line]
    assert len(stops) >= 2, lost.tail()  # the next model's, and every later one's
    assert "was released while this run worked: 'written by the test'" in stops[0], stops[0]
    assert "by invocation taking-over-run)" in stops[0], stops[0]
    assert any("OK created" in line and ".spark_incremental_base_sessions_this_run " in line for line in lost.lines)
    assert any("ERROR creating" in line and ".spark_incremental_base_events_this_run " in line for line in lost.lines)
    assert manifest_state(spark_sql, project) == before
    assert open_locks(spark_sql, project) == []

    at_end, invocation = slow_run(["sessions"], take_over=True)
    assert any(f"(invocation {invocation}) was released while this run worked" in line for line in at_end.lines)
    assert any("the lock was released before sessions finished" in line for line in at_end.lines), at_end.tail()
    after = manifest_state(spark_sql, project)
    assert after["sessions"] == before["sessions"]
    page_views_first = any("OK created" in line and ".page_views " in line
                           for line in at_end.lines[:next(i for i, line in enumerate(at_end.lines)
                                                          if "START sql" in line and ".sessions " in line)])
    assert (after["page_views"] > before["page_views"]) == page_views_first, (after, before, at_end.tail())
    assert open_locks(spark_sql, project) == []

    kept, invocation = slow_run(["spark_incremental_base_sessions_this_run", "slow_mart"], take_over=False)
    assert not any("was released while this run worked" in line for line in kept.lines), kept.tail()
    assert any("minutes without keeping its lock alive" in line
               and "Keep spark_incremental__lock_timeout_minutes at least 1.5 times the longest such stretch"
               " (1 for this one)" in line for line in kept.lines), kept.tail()
    spark_sql.execute(f"refresh table {project.relation('spark_incremental_manifest_log')}")
    own_rows = [(str(row[0]), float(row[1])) for row in spark_sql.query(
        f"select action, unix_micros(written_at) / 1e6 from {project.relation('spark_incremental_manifest_log')} "
        f"where model = '{LOCK_MODEL}' and state = '{invocation}' and record_type = 'lock' order by 2")]
    # a heartbeat only when the run's newest lock row is a third of the timeout (20 s) old:
    # its lock rows are that far apart (a heartbeat at every model past 20 s used to come
    # seconds apart), and there is one after each sleep, the last from the keep_run_lock
    # hook of the project model after slow_mart (no package model comes after it)
    assert [action for action, _ in own_rows][:1] == ["run started"], own_rows
    assert all(b - a >= 19.5 for (_, a), (_, b) in zip(own_rows, own_rows[1:])), own_rows
    assert len(own_rows) >= 3 and own_rows[-1][1] >= started["slow_mart"] + 20, (own_rows, started)
    assert sum("minutes without keeping its lock alive" in line for line in kept.lines) >= 2, kept.tail()
    assert manifest_state(spark_sql, project)["sessions"] > before["sessions"]
    assert open_locks(spark_sql, project) == []
    _assert_consistent(spark_sql, project)
    assert derived(spark_sql, project) == incremental_reference(make_project, spark_sql, runs=2)

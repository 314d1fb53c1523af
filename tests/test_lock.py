"""The run lock under a real orchestrator: killed runs, heartbeats, compaction, races.

Locks of other runs are written into the manifest log as a killed or running dbt run
would have left them (a 'lock' row per heartbeat, an 'unlock' row when released), with
the ages the scenario needs; the run under test is a real `dbt run`.
"""

from __future__ import annotations

import os
import time
from typing import Callable

import pytest

from tests.harness.dbt import DbtProject, DbtResult
from tests.harness.sql import SparkSql
from tests.test_faults import (
    HOOKS_WITH_PAUSE_AT_START,
    LOCK_HELD,
    LOCK_MODEL,
    SLOW_HOOK_MACRO,
    SLOW_SESSIONS,
    kill,
    log_row_count,
    manifest_state,
    new_events_project,
    now_of,
    open_locks,
    set_hooks,
    wait_for,
    write_lock_rows,
)
from tests.test_sessions import _assert_consistent

LIMITS = "spark_incremental_base_new_event_limits"
# rounds of two runs started together (the bar is 20; CI runs fewer)
RACE_ROUNDS = int(os.environ.get("SPARK_INCREMENTAL_LOCK_RACE_ROUNDS", "3"))


def _log(project: DbtProject) -> str:
    return project.relation("spark_incremental_manifest_log")


def age_lock_rows(spark_sql: SparkSql, project: DbtProject, minutes: int) -> None:
    """Make every run's 'lock' rows `minutes` older, as if that much time had passed since
    they were written (the partitions written by start_run hold only lock rows)."""
    log = _log(project)
    copy = project.relation("test_aged_locks")
    spark_sql.execute(f"drop table if exists {copy}")
    spark_sql.execute(
        f"create table {copy} using parquet as select * from {log} where batch_id in ("
        f"select batch_id from {log} group by batch_id "
        f"having min(model = '{LOCK_MODEL}' and record_type = 'lock'))"
    )
    spark_sql.execute(
        f"insert overwrite table {log} partition (batch_id) select model, record_type, last_success, "
        "mutability_type, last_refresh, high_water_mark, high_water_mark_type, state, action, "
        f"invocation_id, written_at - interval {minutes} minutes, batch_id from {copy}"
    )
    spark_sql.execute(f"drop table {copy}")


def _run_limits(project: DbtProject, expect_success: bool = True, **vars: object) -> DbtResult:
    return project.run("run", "--select", LIMITS, vars={**now_of(0), **vars}, expect_success=expect_success)


def test_a_silent_lock_is_taken_over_and_a_heartbeat_keeps_a_lock_alive(
    make_project: Callable[..., DbtProject], spark_sql: SparkSql
) -> None:
    """A killed run's lock blocks the schedule only while it is recent: a lock whose newest
    row is older than lock_timeout_minutes (15) is taken over, with a line naming it; a
    run that started long ago but sent a heartbeat recently still holds the lock."""
    project = new_events_project(make_project, spark_sql, batches=1)
    _run_limits(project)  # creates the manifest log
    # an empty name: refused with the other vars, before the lock
    empty = project.run("run", "--select", LIMITS, expect_success=False,
                        vars={**now_of(0), "spark_incremental__models_to_remove": ["sessions", ""]})
    assert any("an empty name" in line for line in empty.lines), empty.tail()
    assert open_locks(spark_sql, project) == []
    write_lock_rows(spark_sql, project, "killed-run", "lock", [50, 20])  # silent for 20 minutes
    write_lock_rows(spark_sql, project, "long-run", "lock", [40, 30, 3])  # started 40 min ago, alive

    refused = _run_limits(project, expect_success=False)
    held = [line for line in refused.lines if LOCK_HELD in line]
    assert held and "invocation long-run" in held[0], refused.tail()
    assert "15 minutes" in held[0]
    assert any("released the silent manifest lock of invocation killed-run" in line and "silent since" in line
               for line in refused.lines), refused.tail()
    assert not any(status == "success" for status in refused.statuses.values())
    assert open_locks(spark_sql, project) == ["long-run"]

    write_lock_rows(spark_sql, project, "long-run", "unlock", [1])  # the long run ends
    ok = _run_limits(project)
    assert not any("released the silent" in line for line in ok.lines)
    assert open_locks(spark_sql, project) == []


def test_lock_timeout_must_be_a_positive_whole_number(
    make_project: Callable[..., DbtProject], spark_sql: SparkSql
) -> None:
    """0 would turn the lock off; text from env_var is read as a number; nothing is written
    for a bad value."""
    project = new_events_project(make_project, spark_sql, batches=1)
    _run_limits(project, spark_incremental__lock_timeout_minutes="20")
    rows_before = int(spark_sql.scalar(f"select count(*) from {_log(project)}"))
    for bad in (0, "-5", "ten"):
        result = _run_limits(project, expect_success=False, spark_incremental__lock_timeout_minutes=bad)
        assert any("spark_incremental__lock_timeout_minutes" in line and "is not allowed" in line
                   for line in result.lines), result.tail()
    assert int(spark_sql.scalar(f"select count(*) from {_log(project)}")) == rows_before
    assert open_locks(spark_sql, project) == []


@pytest.mark.slow  # CI: the lock's take-over and release tests; make test runs this too
def test_compaction_keeps_no_released_or_lost_lock(
    make_project: Callable[..., DbtProject], spark_sql: SparkSql
) -> None:
    """A run that lost the race (its lock and its unlock) must not come back to life when
    the winner compacts the log (compaction used to keep the newest lock row and the newest
    unlock row, of two different runs)."""
    project = new_events_project(make_project, spark_sql, batches=1)
    _run_limits(project)
    # it lost to this run: its lock row is newer than this run's, its unlock older than this run's
    write_lock_rows(spark_sql, project, "lost-run", "lock", [-1.0])
    write_lock_rows(spark_sql, project, "lost-run", "unlock", [0.005])
    compacted = _run_limits(project, spark_incremental__manifest_compact_after=0)
    assert any("manifest log compacted" in line for line in compacted.pkg_lines())
    lock_rows = spark_sql.query(f"select state, record_type from {_log(project)} where model = '{LOCK_MODEL}'")
    assert lock_rows == []
    _run_limits(project)  # not refused
    assert open_locks(spark_sql, project) == []


def test_an_uncontended_run_takes_the_lock_without_waiting(
    make_project: Callable[..., DbtProject], spark_sql: SparkSql
) -> None:
    """With no other lock open, a run appends its lock row, reads the locks once and
    proceeds: no sleep statement, no wait line (the lock used to sleep until its row was
    2 s old)."""
    project = new_events_project(make_project, spark_sql, batches=1)
    _run_limits(project)  # creates the manifest log
    result = _run_limits(project)
    # the statements dbt issued (its debug log): the lock's read is among them, no sleep
    assert any(LOCK_MODEL in line and "then state end as holder" in line for line in result.debug_lines)
    assert not any("java.lang.Thread" in line for line in result.debug_lines)
    assert not any("younger lock" in line for line in result.pkg_lines()), result.tail()
    assert open_locks(spark_sql, project) == []


def test_a_run_that_touches_nothing_of_the_package_takes_no_lock(
    make_project: Callable[..., DbtProject], spark_sql: SparkSql
) -> None:
    """While the events pipeline holds the lock, a run of a model that neither reads nor
    writes what the package keeps proceeds without the lock and writes no manifest row;
    a model that selects from a package table still takes the lock (and is refused)."""
    project = new_events_project(make_project, spark_sql, batches=1)
    _run_limits(project)  # creates the manifest log
    project.write_model("derived/plain_one.sql", "{{ config(materialized='table') }}\nselect 1 as one\n")
    project.write_model(
        "derived/reads_events.sql",
        "{{ config(materialized='table') }}\n"
        "select count(*) as n from {{ ref('spark_incremental_base_events_this_run') }}\n",
    )
    write_lock_rows(spark_sql, project, "long-run", "lock", [3])  # a pipeline run is working
    rows_before = log_row_count(spark_sql, project)

    plain = project.run("run", "--select", "plain_one", vars=now_of(0))
    assert any("no run lock, no manifest row" in line for line in plain.pkg_lines()), plain.tail()
    assert not any(LOCK_HELD in line for line in plain.lines)
    assert spark_sql.table_rows(project.relation("plain_one")) == [(1,)]
    assert log_row_count(spark_sql, project) == rows_before
    assert open_locks(spark_sql, project) == ["long-run"]

    reader = project.run("run", "--select", "reads_events", vars=now_of(0), expect_success=False)
    assert any(LOCK_HELD in line and "invocation long-run" in line for line in reader.lines), reader.tail()
    assert open_locks(spark_sql, project) == ["long-run"]


def test_a_run_whose_own_lock_reads_as_released_says_which_row_released_it(
    make_project: Callable[..., DbtProject], spark_sql: SparkSql
) -> None:
    """A run reads its own lock as released right after its append when the log already
    holds an 'unlock' row for its invocation id: an earlier invocation with the same id
    (a repeated invocation), or another run that took the lock over in between. It stops
    before any model, quotes that row (who wrote it, when, why), and leaves no open lock;
    a run with a new id then proceeds."""
    from dbt_common.invocation import get_invocation_id

    project = new_events_project(make_project, spark_sql, batches=1)
    _run_limits(project)
    for writer, expected in ((None, "An earlier invocation with the same id took and released the lock"),
                             ("other-run", "was released by another run before this run read it")):
        released: list[str] = []

        def release_this_id(line: str, writer: str | None = writer) -> None:
            # the first line of the invocation: its id is set, its start hook has not run
            if not released:
                released.append(get_invocation_id())
                write_lock_rows(spark_sql, project, released[0], "unlock", [5], writer=writer)

        refused = project.run("run", "--select", LIMITS, vars=now_of(0), expect_success=False,
                              on_line=release_this_id)
        stop = [line for line in refused.lines if f"this run's lock on the manifest (invocation {released[0]})" in line]
        assert stop and expected in stop[0] and "This run changed nothing" in stop[0], refused.tail()
        assert f"by invocation {writer or released[0]})" in stop[0], stop[0]
        assert "'written by the test'" in stop[0], stop[0]
        assert not any(status == "success" for status in refused.statuses.values())
        assert open_locks(spark_sql, project) == []
    _run_limits(project)
    assert open_locks(spark_sql, project) == []


@pytest.mark.slow  # CI: test_two_runs_started_together_exactly_one_proceeds (cluster and 3.5 steps); make test runs this too
def test_the_oldest_lock_waits_for_younger_ones_to_back_off(
    make_project: Callable[..., DbtProject], spark_sql: SparkSql
) -> None:
    """A run that sees a younger open lock (a run started with it, or one that read the
    locks before this run's row was there) waits for its 'unlock' row: it proceeds once
    the younger run backs off, and stops naming that run if its lock is still open after
    the wait (that run went on)."""
    project = new_events_project(make_project, spark_sql, batches=1)
    _run_limits(project)
    # a younger run that went on: stamped later than the run under test, never released
    write_lock_rows(spark_sql, project, "younger-run", "lock", [-10])
    refused = _run_limits(project, expect_success=False)
    assert any("1 younger lock(s) open (younger-run)" in line for line in refused.pkg_lines()), refused.tail()
    held = [line for line in refused.lines if LOCK_HELD in line]
    assert held and "invocation younger-run" in held[0], refused.tail()
    assert not any(status == "success" for status in refused.statuses.values())
    assert open_locks(spark_sql, project) == ["younger-run"]

    # a younger run that backs off while the run under test waits
    write_lock_rows(spark_sql, project, "younger-run", "unlock", [0])
    write_lock_rows(spark_sql, project, "backing-off", "lock", [-10])
    proc = project.run_subprocess("run", "--select", LIMITS, vars=now_of(0))
    wait_for(proc, project, "younger lock(s) open (backing-off)")
    write_lock_rows(spark_sql, project, "backing-off", "unlock", [0])
    assert proc.wait(timeout=600) == 0, project.subprocess_output(proc)[-3000:]
    output = project.subprocess_output(proc)
    assert "this run proceeds" in output and LOCK_HELD not in output, output[-3000:]
    assert open_locks(spark_sql, project) == []


@pytest.mark.cluster_core
def test_two_runs_started_together_exactly_one_proceeds(
    make_project: Callable[..., DbtProject], spark_sql: SparkSql
) -> None:
    """Rounds of two `dbt run` processes started at the same moment: in each, exactly one
    runs its models; the other stops before any model, naming the holder. No lock is left."""
    project = new_events_project(make_project, spark_sql, batches=1)
    _run_limits(project)
    for round_no in range(RACE_ROUNDS):
        procs = [
            project.run_subprocess("run", "--select", LIMITS, "--target-path", f"target_{side}", vars=now_of(0))
            for side in ("a", "b")
        ]
        codes = [proc.wait(timeout=600) for proc in procs]
        outputs = [project.subprocess_output(proc) for proc in procs]
        assert codes.count(0) == 1, (round_no, codes, [out[-2000:] for out in outputs])
        loser = outputs[1 - codes.index(0)]
        assert LOCK_HELD in loser, loser[-2000:]
        assert "OK created" not in loser
        time.sleep(0.5)
    assert open_locks(spark_sql, project) == []


def test_a_killed_runs_lock_is_taken_over_once_silent(
    make_project: Callable[..., DbtProject], spark_sql: SparkSql
) -> None:
    """13. A lock left by a killed run stops others only while it is recent: once silent for
    lock_timeout_minutes (15 by default) the next run takes it over and says so."""
    project = new_events_project(make_project, spark_sql, batches=1)
    set_hooks(project, 'on-run-start:\n  - "{{ spark_incremental.start_run() }}"\n', HOOKS_WITH_PAUSE_AT_START)
    proc = project.run_subprocess("run", vars={**now_of(0), "test_pause": True})
    wait_for(proc, project, "test_pause: started")
    kill(proc)
    refused = project.run("run", vars=now_of(0), expect_success=False)
    assert any(LOCK_HELD in line and "silent for 15 minutes" in line for line in refused.lines)
    age_lock_rows(spark_sql, project, minutes=16)  # 16 minutes pass
    taken = project.run("run", vars=now_of(0))
    assert any("released the silent manifest lock" in line for line in taken.lines), taken.tail()
    assert manifest_state(spark_sql, project)
    _assert_consistent(spark_sql, project)


def test_a_start_hook_that_stops_after_taking_the_lock_releases_it(
    make_project: Callable[..., DbtProject], spark_sql: SparkSql
) -> None:
    """dbt runs no on-run-end hook after a failed on-run-start, so a start hook stopped after
    its lock row (here by warnings that --warn-error raises: the take-over of a killed run's
    lock, a misspelt spark_incremental__models_to_remove) releases the lock itself, after
    releasing the dead lock and before removing anything. The very next run proceeds and
    backfills every tracked model whole (such a run's lock used to refuse every run for
    lock_timeout_minutes, and under --warn-error each take-over left a new one). The end
    hook (a partial base chain; its own lock check after a model slept a third of the
    timeout) raises such a warning only after its append, its lock released."""
    project = new_events_project(make_project, spark_sql, batches=1)
    project.default_vars["spark_incremental__backfill_limit_days"] = 30  # the run catches up
    removing = project.run("run", "--warn-error", "--select", LIMITS, expect_success=False,
                           vars={**now_of(0), "spark_incremental__models_to_remove": ["sessions", "sessionz"]})
    assert any("'sessionz' is not a tracked model" in line for line in removing.lines), removing.tail()
    assert open_locks(spark_sql, project) == []
    assert spark_sql.scalar(f"select count(*) from {_log(project)} where record_type = 'remove'") == 0
    write_lock_rows(spark_sql, project, "killed-run", "lock", [50, 20])  # silent for 20 minutes
    taken = project.run("run", "--warn-error", "--select", LIMITS, vars=now_of(0), expect_success=False)
    assert any("released the silent manifest lock of invocation killed-run" in line for line in taken.lines), taken.tail()
    assert open_locks(spark_sql, project) == []

    again = project.run("run", vars=now_of(0))
    assert not any(LOCK_HELD in line for line in again.lines), again.tail()
    assert any("[state 1]" in line for line in again.pkg_lines()), again.tail()
    assert set(manifest_state(spark_sql, project)) >= {"sessions", "page_views"}
    _assert_consistent(spark_sql, project)
    assert open_locks(spark_sql, project) == []

    # the end hook's warnings too: a tracked model run without its base chain, and (its
    # post-hook sleeps 21 s of a 1-minute timeout) the lock check the end hook makes first.
    # Both are kept until its append: the first is logged, the last raised, so the run fails
    # with its lock released (the lock check used to raise before the append, leaving it)
    project.write_file("macros/test_slow_hook.sql", SLOW_HOOK_MACRO)
    project.write_file("dbt_project.yml", project.read_file("dbt_project.yml") + SLOW_SESSIONS)
    partial = project.run("run", "--warn-error", "--select", "sessions", expect_success=False,
                          vars={**now_of(0), "spark_incremental__lock_timeout_minutes": "1",
                                "test_slow_at": ["sessions"]})
    kept = [line for line in partial.pkg_lines() if "warning: this run went" in line]
    assert kept and "minutes without keeping its lock alive" in kept[0], partial.tail()
    assert any("ran without the whole base chain" in line for line in partial.lines), partial.tail()
    assert open_locks(spark_sql, project) == []

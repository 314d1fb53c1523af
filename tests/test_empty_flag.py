"""dbt's --empty flag (and DBT_EMPTY): every ref() and source() reads zero rows; --sample:
those with an event_time read only the sample window. A run that touches what the
package keeps is refused at on-run-start, before anything is written, so no events
window is recorded as processed while none or part of it was read. A run that leaves the
package's models out (models that only read their tables may stay) goes on. After both,
the next run's tables equal one full run."""

from __future__ import annotations

from typing import Callable

import tests.generator as gen
from tests.harness.dbt import DbtProject
from tests.harness.sql import SparkSql
from tests.test_intervals import (DAILY_EVENTS, EVENTS, _project_without_pipeline, done_intervals,
                                  events_rows, reference, table)
from tests.test_late_loads import DERIVED, FIRST_LOAD, L1, VARS, _load, _tables
from tests.test_sessions import _events_table

L2 = "2021-01-02 02:00:00"
SECOND_LOAD = [
    ("c1", "c", "page_view", "2021-01-02 01:00:00"),
    ("c2", "c", "page_view", "2021-01-02 01:05:00"),
    ("b3", "b", "page_view", "2021-01-01 20:10:00"),
]
# a model of the project that only reads a table the package writes
READER = "{{ config(materialized='table') }}\nselect count(*) as sessions from {{ ref('sessions') }}\n"
EXCLUDE = ("--exclude", "package:spark_incremental", "tag:spark_incremental",
           "config.materialized:managed_incremental")


def _new_project(make_project: Callable[..., DbtProject], spark_sql: SparkSql) -> DbtProject:
    project = make_project(**VARS)
    project.write_model("derived/session_count.sql", READER)
    spark_sql.create_table(_events_table(project), gen.EVENT_COLUMNS, [])
    _load(spark_sql, project, L1, FIRST_LOAD)
    return project


def test_empty_flag_is_refused_for_the_package_and_loses_nothing(
    make_project: Callable[..., DbtProject], spark_sql: SparkSql
) -> None:
    full = _new_project(make_project, spark_sql)
    _load(spark_sql, full, L2, SECOND_LOAD)
    full.run("run", vars={"spark_incremental__now": L2})
    expected = _tables(spark_sql, full)

    project = _new_project(make_project, spark_sql)
    project.run("run", vars={"spark_incremental__now": L1})
    _load(spark_sql, project, L2, SECOND_LOAD)
    log = project.relation("spark_incremental_manifest_log")
    log_before = spark_sql.table_rows(log)
    tables_before = _tables(spark_sql, project)

    refused = project.run("run", "--empty", vars={"spark_incremental__now": L2}, expect_success=False)
    message = next(line for line in refused.lines if "dbt's --empty flag cannot run" in line)
    assert "keeps state for: page_views, sessions, spark_incremental_base_events_in_window," in message
    assert "session_count" not in message  # a reader may stay
    assert "--exclude package:spark_incremental tag:spark_incremental config.materialized:managed_incremental" in message
    # dbt stops the invocation at an on-run-start error: no model starts
    assert not any(" START " in line for line in refused.lines), refused.tail()
    # the same through the environment, and for dbt build, with only a var that writes
    by_env = project.run("build", "--select", "session_count", vars={"spark_incremental__now": L2,
                         "spark_incremental__models_to_remove": "page_views"},
                         env={"DBT_EMPTY": "true"}, expect_success=False)
    assert any("--empty flag cannot run what the package keeps state for: spark_incremental__models_to_remove."
               in line for line in by_env.lines), by_env.tail()
    assert spark_sql.table_rows(log) == log_before
    assert _tables(spark_sql, project) == tables_before

    # without the package's models: the reader runs on zero rows (dbt's --empty), the
    # package records nothing
    allowed = project.run("run", "--empty", *EXCLUDE, vars={"spark_incremental__now": L2})
    assert set(allowed.statuses) == {"spark_incremental_integration_tests-on-run-start-0", "session_count",
                                      "spark_incremental_integration_tests-on-run-end-0"}
    assert spark_sql.table_rows(project.relation("session_count")) == [(0,)]
    lock = "__spark_incremental_run_lock__"
    assert [row for row in spark_sql.table_rows(log) if row not in log_before and lock not in str(row)] == []

    project.run("run", vars={"spark_incremental__now": L2})
    assert _tables(spark_sql, project) == expected
    assert spark_sql.table_rows(project.relation("session_count")) == [(len(expected["sessions"]),)]
    assert set(expected) == set(DERIVED)


def test_empty_and_sample_flags_are_refused_for_a_time_interval_model(
    make_project: Callable[..., DbtProject], spark_sql: SparkSql
) -> None:
    """Before the refusal, `dbt run --empty -s daily_events` found no rows in the ready days
    and recorded them as done: the next run never read 2024-01-03 and 2024-01-04. The
    model's source has an event_time, so --sample would have read part of them."""
    project = _project_without_pipeline(make_project, {"daily_events.sql": DAILY_EVENTS})
    schema = project.schema
    spark_sql.create_table(f"{schema}.events", EVENTS, events_rows({"2024-01-02": 2, "2024-01-03": 3}))
    project.run("run", "-s", "daily_events", vars={"spark_incremental__now": "2024-01-03 07:00:00"})
    spark_sql.insert_rows(f"{schema}.events", EVENTS, events_rows({"2024-01-04": 1}))
    later = {"spark_incremental__now": "2024-01-05 07:00:00"}

    sample = "{'start': '2024-01-04', 'end': '2024-01-05'}"
    for flag in (("--empty",), ("--sample", sample)):
        refused = project.run("run", *flag, "-s", "daily_events", vars=later, expect_success=False)
        assert any(f"{flag[0]} flag cannot run what the package keeps state for: daily_events." in line
                   for line in refused.lines), refused.tail()
        assert done_intervals(spark_sql, schema, "daily_events") == [["2024-01-01 00:00:00", "2024-01-03 00:00:00"]]

    project.run("run", "-s", "daily_events", vars=later)
    assert done_intervals(spark_sql, schema, "daily_events") == [["2024-01-01 00:00:00", "2024-01-05 00:00:00"]]
    assert table(spark_sql, f"{schema}.daily_events") == reference(spark_sql, schema, "2024-01-05")
    assert len(table(spark_sql, f"{schema}.daily_events")) == 3

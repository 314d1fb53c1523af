"""show_state: the manifest at a glance, read-only."""

from __future__ import annotations

from typing import Callable

import tests.generator as gen
from tests.harness.dbt import DbtProject
from tests.harness.sql import SparkSql
from tests.test_faults import write_lock_rows
from tests.test_plan_preview import _plan
from tests.test_sessions import BASE_VARS, _create_events, _ts

INTERVALS_MODEL = """
{{ config(materialized='managed_incremental', time_column='ds', start='2021-01-01', interval_unit='day',
          cron='0 0 * * *') }}
select 1 as id, cast('2021-01-01' as date) as ds
"""

FULL_MUTATION_MODEL = """
{{ config(materialized='managed_incremental',
          mutability={'type': 'full_mutation', 'type_params': {'update_cron': '0 13 * * *'}}) }}
select 1 as id
"""


def test_show_state_prints_every_model_and_changes_nothing(
    make_project: Callable[..., DbtProject], spark_sql: SparkSql
) -> None:
    batch = gen.generate().batches[0]
    project = make_project(**BASE_VARS, spark_incremental__now=_ts(batch.load_tstamp))
    _create_events(spark_sql, project, batch.rows())
    project.write_model("daily_snapshot.sql", FULL_MUTATION_MODEL)
    project.write_model("daily_intervals.sql", INTERVALS_MODEL)
    project.run("run")
    # another run holds the lock (its last row a moment ago); a killed run's lock is silent
    write_lock_rows(spark_sql, project, "other-run", "lock", [0.1])
    write_lock_rows(spark_sql, project, "killed-run", "lock", [40, 20])
    log = project.relation("spark_incremental_manifest_log")
    before = spark_sql.scalar(f"select count(*) from {log}")

    result = project.run("run-operation", "spark_incremental.show_state")
    held = [line for line in result.pkg_lines() if line.startswith("spark_incremental: run lock: held by invocation other-run")]
    assert len(held) == 1 and "stops before its models" in held[0] and "takes its lock over from" in held[0], result.tail()
    assert any(line.startswith("spark_incremental: run lock: invocation killed-run (started ")
               and "has been silent since" in line and "more than 15 minutes" in line
               for line in result.pkg_lines()), result.tail()
    table = [line for line in result.lines if " | " in line]
    assert table[0].split(" | ")[0].strip() == "model"
    rows = {line.split(" | ")[0].strip(): [cell.strip() for cell in line.split(" | ")] for line in table[1:]}
    assert rows["sessions"][1] == "events + managed: upsert"
    assert rows["sessions"][2].startswith("last_success 2021-01-0")
    assert rows["sessions"][4].startswith("state 4: events '")
    assert rows["daily_snapshot"][1] == "managed: full_mutation"
    # the plan the run computes (one function), not a re-implementation of it
    assert rows["daily_snapshot"][4].startswith("skip: next refresh due at 2021-01-03 13:00:00"), rows["daily_snapshot"]
    assert rows["daily_intervals"][1] == "managed: time_intervals", rows["daily_intervals"]
    assert rows["daily_intervals"][4].startswith("skip: no missing day intervals"), rows["daily_intervals"]
    assert spark_sql.scalar(f"select count(*) from {log}") == before

    # a tracked model deleted from the project: its progress stays, and show_state says so
    project.remove_file("models/derived/page_views.sql")
    result = project.run("run-operation", "spark_incremental.show_state")
    gone = [line for line in result.pkg_lines() if line.startswith("spark_incremental: page_views: in the manifest")]
    assert len(gone) == 1 and "not a tracked model of this project now" in gone[0], result.tail()
    assert not any(line.startswith("spark_incremental: sessions: in the manifest") for line in result.pkg_lines())
    # the plan preview names it too, in its text and its JSON
    result, plan = _plan(project)
    assert [line for line in result.pkg_lines() if line.startswith("spark_incremental: page_views: in the manifest")] == gone
    assert plan["departed"] == ["page_views"], plan["departed"]

"""Bad input for the foundation: one clear message naming the var or the fix; nothing written."""

from __future__ import annotations

import pytest

from tests.harness.dbt import DbtProject
from tests.harness.sql import SparkSql
from tests.test_run_limits import EVENT_COLUMNS, event


@pytest.fixture
def project_with_events(dbt_project: DbtProject, spark_sql: SparkSql) -> DbtProject:
    spark_sql.create_table(
        f"{dbt_project.schema}.events", EVENT_COLUMNS, [event("e1", "s1", "2021-01-01 10:00:00")]
    )
    dbt_project.default_vars.update(
        {"spark_incremental__start_date": "2021-01-01", "spark_incremental__now": "2021-01-10 00:00:00"}
    )
    return dbt_project


def manifest_state_rows(project: DbtProject, spark_sql: SparkSql) -> int:
    tables = [row[1] for row in spark_sql.query(f"show tables in {project.schema}")]
    if "spark_incremental_manifest_log" not in tables:
        return 0
    # lock / unlock rows of the run itself are not state
    return int(
        spark_sql.scalar(
            f"select count(*) from {project.schema}.spark_incremental_manifest_log "
            "where record_type in ('events', 'managed', 'remove')"
        )
    )


@pytest.mark.parametrize(
    ("bad_vars", "message"),
    [
        ({"spark_incremental__start_date": "yesterday"}, "spark_incremental__start_date = yesterday (text) is not allowed: it must be a date"),
        ({"spark_incremental__start_date": "2021-02-30"}, "spark_incremental__start_date = 2021-02-30 (text) is not allowed: it must be a date"),
        ({"spark_incremental__backfill_limit_days": 0}, "spark_incremental__backfill_limit_days = 0 (integer) is not allowed: it must be a whole number >= 1"),
        ({"spark_incremental__backfill_limit_days": -5}, "spark_incremental__backfill_limit_days = -5 (integer) is not allowed"),
        ({"spark_incremental__lookback_window_hours": -1}, "spark_incremental__lookback_window_hours = -1 (integer) is not allowed: it must be a whole number >= 0"),
        ({"spark_incremental__events_table": "no_such_table"}, "no_such_table does not exist. Set spark_incremental__events_schema"),
        ({"spark_incremental__events_schema": "no_such_schema"}, "no_such_schema.events does not exist. Set spark_incremental__events_schema"),
        ({"spark_incremental__session_timestamp": "no_such_column"}, "spark_incremental__session_timestamp = 'no_such_column' is not a column"),
    ],
)
def test_bad_vars_fail_clearly(
    project_with_events: DbtProject, spark_sql: SparkSql, bad_vars: dict, message: str
) -> None:
    result = project_with_events.run("run", vars=bad_vars, expect_success=False)
    text = "\n".join(result.lines)
    assert message in text
    assert manifest_state_rows(project_with_events, spark_sql) == 0


def test_missing_hook_warns(project_with_events: DbtProject) -> None:
    project = project_with_events
    config = project.read_file("dbt_project.yml")
    project.write_file(
        "dbt_project.yml",
        config.replace('on-run-end:\n  - "{{ spark_incremental.update_manifest() }}"\n', ""),
    )
    result = project.run("run", "--select", "spark_incremental_base_new_event_limits")
    assert any(
        "no on-run-end hook calls update_manifest" in line and "spark_incremental.update_manifest()" in line
        for line in result.lines
    )

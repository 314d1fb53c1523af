"""Which models the manifest tracks, and under which name.

Versions of a model (dbt's `versions:`) share the model's name, under which the package
keeps manifest rows and managed_incremental states. One tracked version works; two stop
the run at on-run-start with their names, before anything is written (without the check,
every run stayed in state 2 waiting for a backfill of no model, and never processed a
newer event). Back to one version, the next run processes what arrived.

An ephemeral model tagged spark_incremental (a folder's +tags reach it too) is not
tracked: it keeps no table and never records progress (before, every run after the first
was in state 2 for its backfill and never processed a newer event). A tagged model that
selects from it is.

dbt unit tests of a tracked managed_incremental model render its SQL against fixtures:
the package's macros in it read nothing (is_incremental() false, is_run_with_new_events()
true) unless the test overrides them with the package's prefix. Before, the unit test
failed ("'dict object' has no attribute 'nodes'") and dbt build skipped the model.

A tracked model with an alias that calls is_run_with_new_events(this.name) passes its
alias (this.name is the table's name): it is read as the model's name, so the model skips
a window it has processed (before, it reprocessed it in state 2 and 3)."""

from __future__ import annotations

from typing import Callable

import pytest

import tests.generator as gen
from tests.harness.dbt import DbtProject
from tests.harness.spark import ThriftServer
from tests.harness.sql import SparkSql
from tests.test_late_loads import FIRST_LOAD, L1, VARS, _load
from tests.test_sessions import _events_table

L2 = "2021-01-02 02:00:00"
SECOND_LOAD = [
    ("c1", "c", "page_view", "2021-01-02 01:00:00"),
    ("c2", "c", "page_view", "2021-01-02 01:05:00"),
]
VISITS = """{{ config(materialized='managed_incremental', unique_key='session_identifier',
    file_format='parquet', tags=['spark_incremental'], skip_without_new_events=true) }}

select
    session_identifier,
    count(*) as event_count,
    min(collector_tstamp) as first_seen
from {{ ref('spark_incremental_base_events_this_run') }}
group by session_identifier
"""
VERSIONS_YML = """version: 2
models:
  - name: visits
    latest_version: 1
    versions:
{versions}
"""


def _project(make_project: Callable[..., DbtProject], spark_sql: SparkSql, files: dict[str, str]) -> DbtProject:
    """The integration project with `files` (path under models/derived -> text) and the
    first load of events."""
    project = make_project(**VARS)
    spark_sql.create_table(_events_table(project), gen.EVENT_COLUMNS, [])
    for path, text in files.items():
        project.write_model(f"derived/{path}", text)
    _load(spark_sql, project, L1, FIRST_LOAD)
    return project


def test_two_tracked_versions_of_a_model_stop_the_run_with_their_names(
    make_project: Callable[..., DbtProject], spark_sql: SparkSql
) -> None:
    project = _project(make_project, spark_sql, {"visits_v1.sql": VISITS,
                                                 "visits.yml": VERSIONS_YML.format(versions="      - v: 1")})
    project.run("run", vars={"spark_incremental__now": L1})
    visits = project.relation("visits_v1")
    assert [row[:2] for row in spark_sql.table_rows(visits)] == [("a", 2), ("b", 2)]

    _load(spark_sql, project, L2, SECOND_LOAD)
    project.write_model("derived/visits_v2.sql", VISITS)
    project.write_model("derived/visits.yml", VERSIONS_YML.format(versions="      - v: 1\n      - v: 2"))
    log = project.relation("spark_incremental_manifest_log")
    log_before = spark_sql.table_rows(log)
    refused = project.run("run", vars={"spark_incremental__now": L2}, expect_success=False)
    assert any("spark_incremental: more than one model is named 'visits' (visits.v1, visits.v2): versions of a model,"
               in line for line in refused.lines), refused.tail()
    assert not any(" START " in line for line in refused.lines), refused.tail()
    assert spark_sql.table_rows(log) == log_before

    project.remove_file("models/derived/visits_v2.sql")
    project.write_model("derived/visits.yml", VERSIONS_YML.format(versions="      - v: 1"))
    after = project.run("run", vars={"spark_incremental__now": L2})
    assert "spark_incremental: [state 4] standard incremental run" in after.pkg_lines()
    assert [row[:2] for row in spark_sql.table_rows(visits)] == [("a", 2), ("b", 2), ("c", 2)]


EPHEMERAL = """{{ config(materialized='ephemeral', tags=['spark_incremental']) }}

select
    session_identifier,
    collector_tstamp
from {{ ref('spark_incremental_base_events_this_run') }}
"""


def counts_model(source: str, where: str = "") -> str:
    """A tracked managed_incremental model: each session's event count in `source`."""
    return ("{{ config(materialized='managed_incremental', unique_key='session_identifier',\n"
            "    file_format='parquet', tags=['spark_incremental']) }}\n\n"
            "select\n    session_identifier,\n    count(*) as event_count\n"
            f"from {{{{ ref('{source}') }}}}\n{where}group by session_identifier\n")


FROM_EPHEMERAL = counts_model("ephemeral_events")


def test_a_tagged_ephemeral_model_is_not_tracked(make_project: Callable[..., DbtProject],
                                                  spark_sql: SparkSql) -> None:
    project = _project(make_project, spark_sql, {"ephemeral_events.sql": EPHEMERAL,
                                                 "from_ephemeral.sql": FROM_EPHEMERAL})
    first = project.run("run", vars={"spark_incremental__now": L1})
    assert ("spark_incremental: ephemeral_events is tagged spark_incremental but ephemeral: not tracked (no table,"
            " no progress to record); a tagged model that selects from it is") in first.pkg_lines()

    _load(spark_sql, project, L2, SECOND_LOAD)
    second = project.run("run", vars={"spark_incremental__now": L2})
    assert "spark_incremental: [state 4] standard incremental run" in second.pkg_lines()
    assert spark_sql.table_rows(project.relation("from_ephemeral")) == [("a", 2), ("b", 2), ("c", 2)]
    last_success = spark_sql.query(
        f"select model, date_format(max(last_success), 'yyyy-MM-dd HH:mm:ss') "
        f"from {project.schema}.spark_incremental_manifest_log "
        f"where record_type = 'events' and model in ('ephemeral_events', 'from_ephemeral') group by model")
    assert last_success == [("from_ephemeral", "2021-01-02 01:05:00")]


FROM_EVENTS = counts_model("spark_incremental_base_events_this_run", """where
    {{ spark_incremental.is_run_with_new_events(this.name) }}
    {%- if spark_incremental.is_incremental() %}
    and session_identifier != 'left_out_when_incremental'
    {%- endif %}
""")
UNIT_TESTS = """version: 2
unit_tests:
  - name: counts_events_of_a_build
    model: from_events
    given:
      - input: ref('spark_incremental_base_events_this_run')
        rows:
          - {session_identifier: a}
          - {session_identifier: a}
          - {session_identifier: left_out_when_incremental}
    expect:
      rows:
        - {session_identifier: a, event_count: 2}
        - {session_identifier: left_out_when_incremental, event_count: 1}
  - name: counts_events_of_an_incremental_run
    model: from_events
    overrides:
      macros:
        spark_incremental.is_incremental: true
    given:
      - input: ref('spark_incremental_base_events_this_run')
        rows:
          - {session_identifier: a}
          - {session_identifier: left_out_when_incremental}
    expect:
      rows:
        - {session_identifier: a, event_count: 1}
"""


def test_unit_tests_of_a_tracked_model_run_on_their_fixtures(make_project: Callable[..., DbtProject],
                                                             spark_sql: SparkSql, spark_server: ThriftServer) -> None:
    if spark_server.spark_version.startswith("3."):
        pytest.skip("dbt's unit-test materialization creates its temporary view with run_query(), which PyHive on"
                    " Spark 3.5 cannot answer ('NoneType' object is not iterable), whatever the model")
    project = _project(make_project, spark_sql, {"from_events.sql": FROM_EVENTS, "unit_tests.yml": UNIT_TESTS})
    first = project.run("build", vars={"spark_incremental__now": L1})
    assert first.statuses["counts_events_of_a_build"] == "pass"
    assert first.statuses["counts_events_of_an_incremental_run"] == "pass"
    assert spark_sql.table_rows(project.relation("from_events")) == [("a", 2), ("b", 2)]

    _load(spark_sql, project, L2, SECOND_LOAD)
    second = project.run("build", vars={"spark_incremental__now": L2})
    assert "spark_incremental: [state 4] standard incremental run" in second.pkg_lines()
    assert second.statuses["from_events"] == "success"
    assert spark_sql.table_rows(project.relation("from_events")) == [("a", 2), ("b", 2), ("c", 2)]


ALIASED = counts_model("spark_incremental_base_events_this_run",
                       "where {{ spark_incremental.is_run_with_new_events(this.name) }}\n").replace(
    "tags=['spark_incremental']", "tags=['spark_incremental'], alias='visits_table'")


def test_an_aliased_model_passing_this_name_skips_a_window_it_has_processed(
        make_project: Callable[..., DbtProject], spark_sql: SparkSql) -> None:
    project = _project(make_project, spark_sql, {"visits.sql": ALIASED})
    project.run("run", vars={"spark_incremental__now": L1})
    visits = project.relation("visits_table")
    assert spark_sql.table_rows(visits) == [("a", 2), ("b", 2)]

    _load(spark_sql, project, L2, SECOND_LOAD)
    project.write_model("derived/newcomer.sql", counts_model("spark_incremental_base_events_this_run"))
    backfill = project.run("run", vars={"spark_incremental__now": L2})
    lines = backfill.pkg_lines()
    assert "spark_incremental: [state 2] new incremental models newcomer, backfilling" in lines
    assert any(line.startswith("spark_incremental: visits has processed up to '2021-01-01 20:03:00', which covers")
               for line in lines), backfill.tail()
    assert "spark_incremental: visits: upserted 0 rows on session_identifier: nothing to replace" in lines
    assert spark_sql.table_rows(visits) == [("a", 2), ("b", 2)]

    # its progress is under its name: the next run processes what arrived, and the table
    # is one full run's
    after = project.run("run", vars={"spark_incremental__now": L2})
    assert "spark_incremental: [state 4] standard incremental run" in after.pkg_lines()
    assert spark_sql.table_rows(visits) == [("a", 2), ("b", 2), ("c", 2)]

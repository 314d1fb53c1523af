"""A project as a new user has it: nothing in Spark yet, or no events at all.

- `dbt compile` and `dbt docs generate` (with compilation) work before the events table
  and the package's tables exist: compile-time queries give way to placeholders.
- A project that uses only managed_incremental (spark_incremental__events_enabled false,
  no events table) runs a plain `dbt run`, `dbt build`, `dbt compile` and
  `dbt docs generate`; its manifest state, manifest view and refresh plan still work;
  `--full-refresh` keeps the refresh plan log without a word about events, and a
  restatement of the (absent) event pipeline stops the start hook.
- A selection that leaves the limits model out (`dbt run --select sessions`), before the
  pipeline ever ran in the schema, stops with an error that says what to run, writes
  nothing and releases the run lock.
- Views in place of the package's tables (a copy of another environment's relations)
  stop the run with the statements that drop them; dropped, the next run is the schema's
  first.
"""

from __future__ import annotations

import datetime as dt

from tests import generator as gen
from tests.harness.dbt import DbtProject
from tests.harness.sql import SparkSql
from tests.test_late_loads import FIRST_LOAD, L1, VARS, _load
from tests.test_rebuilds import BASE_VARS, FINAL_NOW, _now, _rows
from tests.test_sessions import _events_table

D = dt.date
BASE_MODELS = (
    "spark_incremental_base_new_event_limits",
    "spark_incremental_base_events_in_window",
    "spark_incremental_base_session_id_filter",
    "spark_incremental_base_sessions_lifecycle_manifest",
    "spark_incremental_base_quarantined_sessions",
    "spark_incremental_base_sessions_this_run",
    "spark_incremental_base_events_this_run",
)


def _exists(sql: SparkSql, relation: str) -> bool:
    schema = relation.rpartition(".")[0]
    return bool(sql.query(f"show schemas like '{schema}'")) and sql.relation_exists(relation)


def _compiled(project: DbtProject, model: str) -> str:
    found = list(project.project_dir.glob(f"target/compiled/**/{model}.sql"))
    assert found, f"no compiled SQL for {model}"
    return found[0].read_text()


def test_compile_and_docs_on_a_fresh_project(dbt_project: DbtProject, spark_sql: SparkSql) -> None:
    project = dbt_project
    events = project.relation("events")
    assert not _exists(spark_sql, events)

    project.run("compile")
    # the first run's window, and the events table the models will read
    limits = _compiled(project, "spark_incremental_base_new_event_limits")
    assert "1 as state" in limits, limits
    assert events in _compiled(project, "spark_incremental_base_events_in_window")
    assert "spark_incremental_base_events_this_run" in _compiled(project, "sessions")

    project.run("docs", "generate")
    assert (project.project_dir / "target" / "catalog.json").exists()
    # rendering SQL wrote nothing
    assert not _exists(spark_sql, project.relation("spark_incremental_manifest_log"))
    assert not _exists(spark_sql, events)


def test_a_selection_without_the_limits_model_before_the_first_run_says_what_to_run(
        make_project, spark_sql: SparkSql) -> None:
    """A model that reads the run limits, selected without the limits model, reads the
    limits of the pipeline's last run from its view. In a schema where the pipeline never
    ran there is no view: the model stops with the package's error (not Spark's 'table or
    view not found'), before it writes anything, and the run's end releases its lock, so
    the next plain run is the pipeline's first. After a run of the limits model alone
    (which shows the state and builds no run table), a model that reads a run table that
    does not exist stops the same way, whether the limits model is in its run or not."""
    project = make_project(**BASE_VARS)
    spark_sql.create_table(project.relation("events"), gen.EVENT_COLUMNS, _rows())

    def refused(*args: str, error: str) -> None:
        result = project.run("run", *args, vars=_now(FINAL_NOW), expect_success=False)
        text = result.text()
        assert error in text and "has not run in this schema yet" in text, result.tail(40)
        assert "This model changed nothing" in text, result.tail(40)
        assert "TABLE_OR_VIEW_NOT_FOUND" not in text, result.tail(40)
        assert result.statuses.get("sessions") == "error", result.statuses
        assert not _exists(spark_sql, project.relation("sessions"))

    for args in (("--select", "sessions"), ("--full-refresh", "--select", "sessions")):
        refused(*args, error="reads the run limits from")
    shown = project.run("run", "--select", "spark_incremental_base_new_event_limits", vars=_now(FINAL_NOW))
    assert any("[state 1]" in line for line in shown.pkg_lines()), shown.pkg_lines()
    this_run = project.relation("spark_incremental_base_events_this_run")
    assert not _exists(spark_sql, this_run)
    for args in (("--select", "sessions"), ("--select", "spark_incremental_base_new_event_limits", "sessions")):
        refused(*args, error=f"sessions reads the run table {this_run}, which does not exist")
    first = project.run("run", vars=_now(FINAL_NOW))
    assert any("[state 1]" in line for line in first.pkg_lines()), first.pkg_lines()
    assert spark_sql.query(f"select count(*) from {project.relation('sessions')}")[0][0] > 0


def _managed_only_project(make_project, events_enabled: object) -> DbtProject:
    project = make_project(spark_incremental__events_enabled=events_enabled)
    for path in sorted((project.project_dir / "models" / "derived").iterdir()):
        path.unlink()  # the example models read the events pipeline
    project.write_model("sales_daily", """\
{{ config(materialized='managed_incremental', mutability={'type': 'ds_append_only'},
          partition_by='ds') }}

with

sales as (
    select * from {{ source('shop', 'sales') }}
    where ds >= {{ spark_incremental.along_min() }} and ds <= {{ spark_incremental.along_max() }}
),

final as (
    select ds, sum(amount) as amount, count(*) as orders
    from sales
    group by ds
)

select * from final
""")
    project.write_model("shop.yml", f"""\
version: 2
sources:
  - name: shop
    schema: {project.schema}
    tables:
      - name: sales
""")
    return project


def test_only_managed_incremental_runs_plainly(make_project, spark_sql: SparkSql) -> None:
    # the text 'False', as env_var gives it, turns the events pipeline off
    project = _managed_only_project(make_project, "False")
    sales = project.relation("sales")
    spark_sql.create_table(sales, {"ds": "date", "amount": "int"},
                           [(D(2024, 1, 1), 10), (D(2024, 1, 1), 5), (D(2024, 1, 2), 7)])

    expected = {D(2024, 1, 1): (15, 2), D(2024, 1, 2): (7, 1)}
    for n in range(3):
        result = project.run("run")
        assert result.statuses.get("sales_daily") == "success", result.statuses
        assert not set(BASE_MODELS) & set(result.statuses), result.statuses
        assert not any("events table" in line for line in result.pkg_lines()), result.pkg_lines()
        spark_sql.execute(f"refresh table {project.relation('sales_daily')}")
        got = sorted(spark_sql.query(f"select ds, amount, orders from {project.relation('sales_daily')}"))
        assert got == sorted((ds, a, o) for ds, (a, o) in expected.items()), (n, got)
        if n == 0:
            # new rows after the first run: the second run appends them
            spark_sql.insert_rows(sales, {"ds": "date", "amount": "int"}, [(D(2024, 1, 3), 4)])
            expected[D(2024, 1, 3)] = (4, 1)

    for model in BASE_MODELS:
        assert not _exists(spark_sql, project.relation(model)), model
    # the manifest log, its view and the refresh plan work for managed models
    manifest = spark_sql.query_dicts(
        f"select model, mutability_type, high_water_mark from {project.relation('spark_incremental_manifest')}"
        f" where model = 'sales_daily'")
    assert [(m["model"], m["mutability_type"]) for m in manifest] == [("sales_daily", "ds_append_only")]
    assert "2024-01-03" in manifest[0]["high_water_mark"], manifest
    assert _exists(spark_sql, project.relation("spark_incremental_refresh_plan"))
    state = project.run("run-operation", "spark_incremental.show_state")
    assert any("sales_daily" in line for line in state.lines), state.tail(20)

    built = project.run("build")
    assert built.statuses.get("sales_daily") == "success", built.statuses
    project.run("compile")
    project.run("docs", "generate")
    assert (project.project_dir / "target" / "catalog.json").exists()

    # --full-refresh keeps the refresh plan log, and says so without the events pipeline
    refreshed = project.run("run", "--full-refresh")
    assert refreshed.statuses.get("sales_daily") == "success", refreshed.statuses
    kept = [line.split(" on --full-refresh ", 1) for line in refreshed.pkg_lines() if " on --full-refresh " in line]
    assert any(head.endswith("spark_incremental_refresh_plan")
               and "forgetting the refresh plans recorded so far" in tail for head, tail in kept), kept
    assert len(kept) == 2 and not any("tracked model" in tail or "event" in tail for _, tail in kept), kept

    # a restatement of the event pipeline (an entry without a model), which this project
    # does not have, stops the start hook instead of being ignored
    failed = project.run("run", vars={"spark_incremental__restate": {"start": "2024-01-01", "end": "2024-01-02"}},
                         expect_success=False)
    text = failed.text() + repr(failed.exception)
    for fragment in ["on-run-start",
                     "an entry without a model restates the event pipeline, and this project has none"
                     " (spark_incremental__events_enabled is false), so there is nothing to restate",
                     "give model: {model: name, start, end}. restate accepts the enabled managed_incremental"
                     " models with time intervals (a time_column): none in this project."]:
        assert fragment in text, (fragment, failed.tail(20))
    assert failed.statuses.get("sales_daily") != "success", failed.statuses


def test_events_enabled_rejects_other_values(make_project) -> None:
    project = _managed_only_project(make_project, "no")
    result = project.run("compile", expect_success=False)
    text = result.text() + repr(result.exception)
    assert "spark_incremental__events_enabled = no (text) is not allowed" in text, result.tail(20)


def test_views_in_place_of_the_package_tables_stop_the_run_saying_what_to_drop(make_project,
                                                                               spark_sql: SparkSql) -> None:
    """A dev schema whose relations are views of production's (what a copy of another
    environment makes where it cannot clone a table; here made by hand): the start hook
    stops before anything is written, naming every view where the package keeps a table,
    with the statements that drop them (before, Spark's EXPECT_TABLE_NOT_VIEW error and
    its stack trace, on every run). Dropped as told, the next run is the schema's first:
    its tables equal production's."""
    project = make_project(**VARS)
    spark_sql.create_table(_events_table(project), gen.EVENT_COLUMNS, [])
    _load(spark_sql, project, L1, FIRST_LOAD)
    project.run("run", vars={"spark_incremental__now": L1})
    dev = project.schema + "_dev"
    copied = sorted(row[1] for row in spark_sql.query(f"show tables in {project.schema}")
                    if row[1] != "events" and not row[2])
    spark_sql.execute(f"create schema {dev}")
    try:
        for name in copied:
            spark_sql.execute(f"create view {dev}.{name} as select * from {project.schema}.{name}")
        env = {"SPARK_INCREMENTAL_SCHEMA": dev}
        refused = project.run("run", vars={"spark_incremental__now": L1}, env=env, expect_success=False)
        kept = ["page_views", "sessions", "spark_incremental_base_events_in_window",
                "spark_incremental_base_events_this_run", "spark_incremental_base_quarantined_sessions",
                "spark_incremental_base_session_id_filter", "spark_incremental_base_sessions_lifecycle_manifest",
                "spark_incremental_base_sessions_this_run", "spark_incremental_manifest_log",
                "spark_incremental_refresh_plan"]
        text = refused.text()
        assert ("spark_incremental: " + ", ".join(f"{dev}.{name}" for name in kept)
                + " are views where the package keeps its tables") in text, refused.tail()
        assert "(" + "; ".join(f"drop view {dev}.{name}" for name in kept) + ") and run again" in text
        assert "EXPECT_TABLE_NOT_VIEW" not in text
        assert not any(" START sql " in line for line in refused.lines), refused.tail()

        for name in kept:
            spark_sql.execute(f"drop view {dev}.{name}")
        first = project.run("run", vars={"spark_incremental__now": L1}, env=env)
        assert any(line.startswith("spark_incremental: [state 1]") for line in first.pkg_lines()), first.tail()
        for name in ["sessions", "page_views", "spark_incremental_base_sessions_lifecycle_manifest"]:
            assert (spark_sql.table_rows(f"{dev}.{name}")
                    == spark_sql.table_rows(f"{project.schema}.{name}")), name
    finally:
        spark_sql.drop_schema(dev)

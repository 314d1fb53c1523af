"""``dbt run-operation spark_incremental.plan``: what the next run will do and read.

On the benchmark's events table partitioned by ``event_date`` (6 days, 24 files a day),
through a first run (state 1) and a standard run (state 4), with another run's live lock
in the manifest log for the second plan:
* the plan writes nothing (the schema's tables, their files and the manifest log are the
  same before and after) and does not wait for the lock;
* it says who holds the lock: nobody before the first run, the other run before the second;
* its actions are the ones the following ``dbt run`` logs (state, window; each
  managed_incremental model's planned action);
* its events input (the window's scan) has the partitions, files and bytes that Spark's
  own scan metrics show for that run's window scan, and its estimated rows are within
  10% of the rows that scan read;
* events_this_run's input (its reads of the events table before the window) is an upper
  bound: no scan of that model reads more partitions or files than it lists.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import time
from typing import Any, Callable

import pytest

from benchmarks import generate
from benchmarks.generate import EventsSpec
from benchmarks.metrics import ScanRead, SqlMetrics, split_dbt_comment
from tests.harness.dbt import DbtProject, DbtResult
from tests.harness.sql import SparkSql
from tests.test_faults import write_lock_rows

DAYS = 6
WINDOW_MODEL = "spark_incremental_base_events_in_window"
READ_BACK_MODEL = "spark_incremental_base_events_this_run"
JSON_PREFIX = "spark_incremental plan json: "


@pytest.fixture
def partitioned(make_project: Callable[..., DbtProject], spark_sql: SparkSql, spark_server: Any) -> dict[str, Any]:
    project = make_project(
        spark_incremental__events_partition_column=generate.PARTITION_COLUMN,
        spark_incremental__start_date="2024-01-01",
        spark_incremental__backfill_limit_days=2,
    )
    spec = EventsSpec(schema=project.schema, table="events", events_per_day=300,
                      files_per_day=24, long_sessions_from_day=2, long_session_share=0.05)
    generate.create_table(spark_sql, spec, replace=True)
    generate.load_days(spark_sql, spec, 0, DAYS - 1)
    return {"project": project, "spec": spec, "probe": SqlMetrics(spark_server.ui_url)}


def _plan(project: DbtProject) -> tuple[DbtResult, dict[str, Any]]:
    result = project.run("run-operation", "spark_incremental.plan",
                         vars={"spark_incremental__plan_format": "json"})
    lines = [line.split(JSON_PREFIX, 1)[1] for line in result.lines if JSON_PREFIX in line]
    assert len(lines) == 1, result.text()
    return result, json.loads(lines[0])


def _snapshot(spark_sql: SparkSql, schema: str) -> dict[str, Any]:
    """Every table of the schema with its files (path, size, modification time), and the
    manifest log's rows: what a write of any kind would change."""
    spark_sql.reconnect()  # no cached listing
    views = {str(row[1]) for row in spark_sql.query(f"show views in {schema}")}
    tables = sorted(str(row[1]) for row in spark_sql.query(f"show tables in {schema}"))
    files: dict[str, list[tuple]] = {}
    for table in tables:
        if table in views:
            continue
        files[table] = sorted(tuple(row) for row in spark_sql.query(
            f"select _metadata.file_path, _metadata.file_size, _metadata.file_modification_time "
            f"from {schema}.{table} group by all"))
    log = sorted(tuple(map(str, row)) for row in spark_sql.query(
        f"select * from {schema}.spark_incremental_manifest_log")) if "spark_incremental_manifest_log" in tables else []
    return {"tables": tables, "files": files, "log": log}


def _window_scans(probe: SqlMetrics, mark: int, spec: EventsSpec, model: str = WINDOW_MODEL) -> list[ScanRead]:
    """The scans of the events table made by a model's statements (the window model's)."""
    reads = probe.reads_since(mark, spec.schema, spec.table)
    by_id = {int(e["id"]): e for e in probe.executions()}
    scans = []
    for scan in reads.scan_details:
        detail = probe.execution(scan.execution_id)
        root = detail.get("rootExecutionId")
        root = scan.execution_id if root is None else int(root)
        who, _ = split_dbt_comment(str(by_id.get(root, by_id[scan.execution_id]).get("description", "")))
        if who.endswith("." + model):
            scans.append(scan)
    return scans


def _run_window(result: DbtResult) -> tuple[int, str, str]:
    state = [line for line in result.pkg_lines() if re.search(r"\[state \d\]", line)]
    window = [line for line in result.pkg_lines() if "processing data between" in line]
    assert len(state) == 1 and len(window) == 1, result.pkg_lines()
    lower, upper = re.findall(r"'([^']+)'", window[0])
    return int(re.search(r"\[state (\d)\]", state[0]).group(1)), lower, upper  # type: ignore[union-attr]


def _planned_actions(result: DbtResult) -> dict[str, str]:
    """managed_incremental models' actions as the run's plan logged them (debug level)."""
    found = {}
    for line in result.debug_lines:
        m = re.search(r"spark_incremental: (\w+): planned (\w+) ", line)
        if m:
            found[m.group(1)] = m.group(2)
    return found


def test_plan_writes_nothing_and_predicts_the_run_and_its_scan(
        partitioned: dict[str, Any], spark_sql: SparkSql) -> None:
    project, spec, probe = partitioned["project"], partitioned["spec"], partitioned["probe"]
    for step in ("first run (state 1)", "standard run (state 4)"):
        if step.startswith("standard"):
            # another run holds the lock (alive: written a moment ago); the plan does not wait
            write_lock_rows(spark_sql, project, "other-run", "lock", [0.1])
        before = _snapshot(spark_sql, project.schema)
        started = time.monotonic()
        result, plan = _plan(project)
        elapsed = time.monotonic() - started
        assert _snapshot(spark_sql, project.schema) == before, f"{step}: the plan wrote something"
        assert not any("lock" in line.lower() and "wait" in line.lower() for line in result.pkg_lines()), step
        # who holds the lock: nobody before the first run; then the other run (the next run would stop)
        if step.startswith("standard"):
            assert [(lock["invocation_id"], lock["status"]) for lock in plan["lock"]] == [("other-run", "held")], plan
            assert any(line.startswith("spark_incremental: run lock: held by invocation other-run")
                       for line in result.pkg_lines()), result.tail()
            write_lock_rows(spark_sql, project, "other-run", "unlock", [0.0])
        else:
            assert plan["lock"] == [] and "spark_incremental: run lock: free (no run holds it)" in result.pkg_lines()
        models = {entry["model"]: entry for entry in plan["models"]}
        assert {WINDOW_MODEL, "sessions", "page_views"} <= set(models), plan
        planned_input = models[WINDOW_MODEL]["inputs"][0]
        assert planned_input["relation"] == f"{spec.schema}.{spec.table}"

        mark = probe.mark()
        run = project.run("run")

        # the action: the run's state and window, and each managed model's planned action
        state, lower, upper = _run_window(run)
        limits = models["spark_incremental_base_new_event_limits"]
        assert (limits["state"], limits["lower_limit"], limits["upper_limit"]) == (state, lower, upper), step
        actions = _planned_actions(run)
        for name in ("sessions", "page_views"):
            assert models[name]["action"] == actions[name], f"{step}: {name}: {models[name]} vs {actions}"

        # the cost: Spark's metrics of the window scan
        scans = _window_scans(probe, mark, spec)
        assert len(scans) == 1, f"{step}: {scans}"
        scan = scans[0]
        assert len(planned_input["partitions"]) == scan.partitions, (step, planned_input, scan)
        assert all(p.startswith(generate.PARTITION_COLUMN + "=") for p in planned_input["partitions"])
        assert planned_input["files"] == scan.files, (step, planned_input, scan)
        # Spark's UI shows sizes rounded to one decimal of their unit
        assert abs(planned_input["bytes"] - scan.bytes) <= 0.05 * _unit(scan.bytes) + 1, (step, planned_input, scan)
        assert abs(planned_input["estimated_rows"] - scan.rows) <= 0.1 * scan.rows, (step, planned_input, scan)
        # a full refresh reads the first window from start_date: at least as much as a standard run here
        assert planned_input["full_refresh"]["files"] >= 1
        assert plan["total"]["files"] >= planned_input["files"]
        print(f"{step}: plan {elapsed:.1f} s; planned {planned_input['files']} files, {planned_input['bytes']} B,"
              f" {planned_input['estimated_rows']} rows; Spark read {scan.files} files, {scan.bytes} B, {scan.rows} rows")

        # events_this_run's reads before the window (sessions begun earlier, earlier copies):
        # the plan lists the range the bounds allow, so no scan of it reads more
        read_back = models[READ_BACK_MODEL]
        assert "at the earliest" in read_back["detail"] and "an upper bound" in read_back["detail"], read_back
        planned_back = read_back["inputs"][0]
        assert planned_back["relation"] == f"{spec.schema}.{spec.table}", read_back
        back_scans = _window_scans(probe, mark, spec, READ_BACK_MODEL)
        # (the first run's range holds no event before start_date: Spark may plan no scan)
        assert back_scans or step.startswith("first"), f"{step}: events_this_run did not read the events table"
        for back in back_scans:
            assert back.partitions <= len(planned_back["partitions"]), (step, planned_back, back)
            assert back.files <= planned_back["files"], (step, planned_back, back)
        assert plan["total"]["files"] >= planned_input["files"] + planned_back["files"]
        print(f"{step}: events_this_run planned {len(planned_back['partitions'])} partitions, {planned_back['files']}"
              f" files, {planned_back['estimated_rows']} rows estimated; Spark read "
              + ", ".join(f"{b.partitions} partitions / {b.files} files / {b.rows} rows" for b in back_scans))


def _unit(size: int) -> int:
    unit = 1
    while size >= unit * 1024:
        unit *= 1024
    return unit


def test_plan_format_must_be_text_or_json(dbt_project: DbtProject) -> None:
    result = dbt_project.run("run-operation", "spark_incremental.plan",
                             vars={"spark_incremental__plan_format": "yaml"}, expect_success=False)
    text = result.text() + str(result.exception)
    assert "plan_format" in text and "yaml" in text and "text" in text and "json" in text, text


def _plan_with(project: DbtProject, vars: dict[str, Any]) -> tuple[DbtResult, dict[str, Any]]:
    """The plan preview with the run's vars: its result and its JSON."""
    result = project.run("run-operation", "spark_incremental.plan",
                         vars={**vars, "spark_incremental__plan_format": "json"})
    found = [line.split(JSON_PREFIX, 1)[1] for line in result.lines if JSON_PREFIX in line]
    assert len(found) == 1, result.text()
    return result, json.loads(found[0])


def _plain_project(make_project: Callable[..., DbtProject]) -> DbtProject:
    """No events pipeline (its example models go): the preview shows a plain dbt run."""
    project = make_project(spark_incremental__events_enabled=False)
    for path in sorted((project.project_dir / "models" / "derived").iterdir()):
        path.unlink()
    return project


def _refresh_block(lines: list[str]) -> str | None:
    blocks = [m for m in lines if m.startswith("spark_incremental: refresh plan for ")]
    assert len(blocks) <= 1, blocks
    return blocks[0] if blocks else None


def test_plan_shows_the_refusals_and_the_selection_of_the_run(make_project, spark_sql: SparkSql) -> None:
    """A described change that would rebuild a model kept by full_refresh=false: the
    preview says the run will be refused, with the start hook's own message, and the
    run then stops with it before any model. A config change that rebuilds the kept model:
    the preview says its materialization refuses it, and the run's model fails with that
    message. The preview is a run of every model (run-operation takes no selector): its
    refresh plan block is the one a `dbt run` without --select logs; a run with --select
    lists a model it leaves out as unselected, not as skipped."""
    from tests.test_changes import MODELS, NOW, SALES, SOURCES_YML, d, fresh, set_sources

    project = _plain_project(make_project)
    schema = project.schema
    project.write_model("changes_test/sources.yml", SOURCES_YML)
    project.write_model("changes_test/fct_sales_append", MODELS["fct_sales_append"][0])
    kept = MODELS["agg_by_product"][0].replace(
        "materialized='managed_incremental',", "materialized='managed_incremental', full_refresh=false,")
    project.write_model("changes_test/kept", kept)
    set_sources(spark_sql, schema, [(i, "P1", i, d(f"2024-01-0{i}")) for i in range(1, 4)], [("P1", "A")])
    project.run("run", vars={"spark_incremental__now": NOW})

    # 1. a change that would rebuild `kept` (its rows do not carry sale_id): the hook refuses the run
    spark_sql.insert_rows(f"{schema}.sales", SALES, [(10, "P1", 10, d("2024-01-03"))])
    run_vars = {"spark_incremental__now": NOW, "spark_incremental__log_plan": True,
                "spark_incremental__changes": [{"table": "sales", "type": "ADD_ROWS", "scope": "sales.sale_id = 10"}]}
    shown, plan = _plan_with(project, run_vars)
    models = {entry["model"]: entry for entry in plan["models"]}
    assert plan["selection"] == "every model", plan
    assert any(line.startswith("spark_incremental: plan of the next dbt run of every model (no --select)")
               for line in shown.pkg_lines()), shown.tail()
    assert plan["refused"] and "model 'kept' must be rebuilt (full refresh: the scope of the change on sales" \
        in plan["refused"], plan
    assert models["kept"]["action"] == "refused", models["kept"]
    assert models["kept"]["refused"] == {"by": "on-run-start", "message": plan["refused"]}, models["kept"]
    assert models["fct_sales_append"]["action"] == "apply_changes" and not models["fct_sales_append"]["refused"]
    assert any(line.startswith("spark_incremental: the next run will be refused") and line.endswith(plan["refused"])
               for line in shown.pkg_lines()), shown.tail()
    row = next(line for line in shown.lines if line.startswith("kept "))
    assert "refused: the run stops in its on-run-start hook" in row, row
    refused = project.run("run", vars=run_vars, expect_success=False)
    # the message the run stopped with is the preview's, and no model ran
    assert plan["refused"] in refused.text() + "\n" + str(refused.exception), refused.tail(40)
    assert not ({"fct_sales_append", "kept"} & set(refused.statuses)), refused.statuses
    # the run's block (a run of every model) is the preview's
    assert _refresh_block(refused.lines) == _refresh_block(shown.lines) is not None
    assert "unselected" not in _refresh_block(shown.lines)  # type: ignore[operator]

    # 2. a run with --select that leaves `kept` out: the block names it unselected, and the run goes on
    selected = project.run("run", "-s", "fct_sales_append", vars=run_vars)
    block = _refresh_block(selected.lines) or ""
    assert ("  unselected kept: reads a changed table but is not in this run's selection (--select), so the"
            " changes do not reach it" in block and "skipped" not in block), block
    assert spark_sql.scalar(f"select count(*) from {fresh(spark_sql, f'{schema}.fct_sales_append')} where sale_id = 10") == 1

    # 3. a config change that rebuilds `kept`: its materialization refuses, the model fails
    project.write_model("changes_test/kept", kept.replace(
        "mutability={'type': 'full_mutation', 'type_params': {'update_cron': '0 0 1 1 *'}}",
        "mutability={'type': 'immutable'}"))
    plain_vars = {"spark_incremental__now": NOW}
    shown, plan = _plan_with(project, plain_vars)
    entry = {e["model"]: e for e in plan["models"]}["kept"]
    assert plan["refused"] is None and entry["action"] == "refused", plan
    assert entry["refused"]["by"] == "materialization" and "mutability type changed from full_mutation to immutable" \
        in entry["refused"]["message"], entry
    failed = project.run("run", vars=plain_vars, expect_success=False)
    assert failed.statuses["kept"] == "error", failed.statuses
    assert failed.statuses["fct_sales_append"] == "success", failed.statuses
    assert entry["refused"]["message"] in failed.text() + "\n" + str(failed.exception), failed.tail(40)


def test_plan_names_the_leftovers_of_an_interrupted_write(make_project, spark_sql: SparkSql) -> None:
    """An upsert killed before its overwrite leaves ups__si_apply and ups__si_stage. The
    next run repairs them before it plans; the preview only reads, so it names them and
    says its plan is for the table as it is now. The run then repairs and upserts."""
    project = _plain_project(make_project)
    sales = project.relation("sales")
    columns = {"sale_id": "int", "amount": "int", "date": "date"}
    spark_sql.create_table(sales, columns, [(1, 10, dt.date(2024, 1, 1)), (2, 20, dt.date(2024, 1, 2))])
    project.write_file("models/shop.yml", "version: 2\nsources:\n  - name: shop\n"
                       "    schema: \"{{ target.schema }}\"\n    tables:\n      - name: sales\n")
    project.write_model("ups", "{{ config(materialized='managed_incremental', unique_key='sale_id',"
                        " partition_by='date') }}\nselect sale_id, amount, date from {{ source('shop', 'sales') }}\n")
    now = {"spark_incremental__now": "2024-06-01 00:00:00"}
    project.run("run", vars=now)
    spark_sql.insert_rows(sales, columns, [(3, 30, dt.date(2024, 1, 3))])
    killed = project.run("run", vars={**now, "spark_incremental__fail_at": "before_overwrite"}, expect_success=False)
    assert killed.statuses["ups"] == "error", killed.statuses

    shown, plan = _plan_with(project, now)
    entry = {e["model"]: e for e in plan["models"]}["ups"]
    assert entry["leftovers"] == ["ups__si_apply", "ups__si_stage"], entry
    assert entry["detail"].startswith("first recovers ups__si_apply, ups__si_stage, left by an interrupted write"), entry
    row = next(line for line in shown.lines if line.startswith("ups "))
    assert "first recovers ups__si_apply, ups__si_stage" in row, row

    repaired = project.run("run", vars=now)
    assert any("recovered: re-applied the interrupted overwrite" in line for line in repaired.pkg_lines()), \
        repaired.pkg_lines()
    assert sorted(spark_sql.table_rows(project.relation("ups"))) == sorted(spark_sql.table_rows(sales))
    _, plan = _plan_with(project, now)
    assert {e["model"]: e for e in plan["models"]}["ups"]["leftovers"] == [], plan


@pytest.mark.slow  # CI: test_intervals.py checks the preview's batches against the run's; make test runs this too
def test_plan_marks_interval_batches_as_an_upper_bound(make_project, spark_sql: SparkSql) -> None:
    """With more than one batch, the run's probe (which needs the compiled model SQL that a
    run-operation lacks) drops the batches whose intervals hold no row: the preview lists
    every batch the probe considers, labelled as an upper bound, and the run runs a subset
    of them. With one batch there is no probe: the preview's batch is the run's."""
    from tests.test_intervals import DAILY_EVENTS, EVENTS, SOURCES_YML, events_rows

    project = _plain_project(make_project)
    project.write_model("intervals_test/sources.yml", SOURCES_YML)
    project.write_model("intervals_test/daily_events", DAILY_EVENTS)
    spark_sql.create_table(f"{project.schema}.events", EVENTS, events_rows({"2024-01-05": 2, "2024-01-20": 3}))

    def ranges(batches: list[list[str]]) -> list[str]:
        return ["[{}, {})".format(*batch) for batch in batches]

    def ran(result: DbtResult) -> list[str]:
        return [line.split(": ", 3)[3].split(" (")[0] for line in result.pkg_lines()
                if "daily_events: interval batch" in line]

    # 31 ready days, one per batch; 2 hold rows
    run_vars = {"spark_incremental__now": "2024-02-01 07:00:00"}
    shown, plan = _plan_with(project, run_vars)
    entry = {e["model"]: e for e in plan["models"]}["daily_events"]
    batches = entry["plan"]["work"]["batches"]
    assert entry["action"] == "intervals" and entry["batches_upper_bound"] is True and len(batches) == 31, entry
    row = next(line for line in shown.lines if line.startswith("daily_events "))
    assert "(up to 31 batches): [2024-01-01 00:00:00, 2024-01-02 00:00:00) .." in row, row
    assert "; an upper bound: the run's probe first records the batches without rows" in row, row
    # show_state words the same plan the same way
    state = project.run("run-operation", "spark_incremental.show_state", vars=run_vars)
    state_row = next(line for line in state.lines if line.split(" | ")[0].strip() == "daily_events")
    assert "(up to 31 batches)" in state_row, state_row
    result = project.run("run", vars=run_vars)
    # the probe considered exactly the previewed intervals, and the run ran a subset of the batches
    assert any("daily_events: 2 of 31 intervals hold rows; 29 empty intervals recorded done without a batch" in line
               for line in result.pkg_lines()), result.pkg_lines()
    assert ran(result) == ["[2024-01-05 00:00:00, 2024-01-06 00:00:00)", "[2024-01-20 00:00:00, 2024-01-21 00:00:00)"]
    assert set(ran(result)) <= set(ranges(batches))

    # one batch: no probe, the preview's batch is exactly the run's
    run_vars = {"spark_incremental__now": "2024-02-02 07:00:00"}
    shown, plan = _plan_with(project, run_vars)
    entry = {e["model"]: e for e in plan["models"]}["daily_events"]
    assert entry["batches_upper_bound"] is False, entry
    row = next(line for line in shown.lines if line.startswith("daily_events "))
    assert "upper bound" not in row and "(1 batch)" in row, row
    result = project.run("run", vars=run_vars)
    assert ran(result) == ranges(entry["plan"]["work"]["batches"]) == ["[2024-02-01 00:00:00, 2024-02-02 00:00:00)"]

"""One plan: the plan a managed_incremental model's SQL is rendered with (is_incremental(),
along_min(), along_max(), along_filter()) is the plan its materialization acts on.

Each run checks, from dbt's own output: the plan was computed once for the model (one
'planned' debug line), the compiled SQL was rendered for it (a marker the model prints
with is_incremental()), and the materialization wrote what it says. Each run ends with the
table equal to a full rebuild from the same sources (sorted rows, every column).
"""

from __future__ import annotations

import datetime as dt
import json
import re

from tests.harness.dbt import DbtProject, DbtResult
from tests.harness.sql import SparkSql
from tests.test_changes import NOW, SALES, SOURCES_YML, d, fresh, rows

# dbt's own idiom: the SQL reads only what is newer than the table when incremental
APPEND_MODEL = """{{ config(materialized='managed_incremental',
          mutability={'type': 'append_only', 'type_params': {'along': 'date'}},
          partition_by='date') }}

with

sales as (
    select * from {{ source('shop', 'sales') }}
    {%- if spark_incremental.is_incremental() %}
    where date > (select max(date) from {{ this }})
    {%- endif %}
),

final as (
    select
        sale_id,
        product,
        amount,
        date
    from sales
)

/* rendered for is_incremental={{ spark_incremental.is_incremental() }} */
select * from final
"""

# an integer along column, read through the window helpers
INT_MODEL = """{{ config(materialized='managed_incremental',
          mutability={'type': 'append_only', 'type_params': {'along': 'sale_id'}}) }}

with

sales as (
    select * from {{ source('shop', 'sales') }}
    where {{ spark_incremental.along_filter() }}
    {%- if spark_incremental.is_incremental() %}
        and sale_id >= {{ spark_incremental.along_min() }}
    {%- endif %}
),

final as (
    select
        sale_id,
        product,
        amount,
        date
    from sales
)

/* rendered for is_incremental={{ spark_incremental.is_incremental() }} */
select * from final
"""

JSON_PREFIX = "spark_incremental plan json: "
REFERENCE = "select sale_id, product, amount, date from {s}.sales"


def planned(result: DbtResult, model: str) -> list[tuple[str, str]]:
    """(action, is_incremental) of each time the run planned `model`."""
    pattern = re.compile(rf"spark_incremental: {model}: planned (\w+) \(is_incremental (true|false)")
    return [m.groups() for line in result.debug_lines if (m := pattern.search(line))]


def rendered_for(project: DbtProject, model: str) -> str:
    compiled = list((project.project_dir / "target" / "compiled").rglob(f"{model}.sql"))
    assert len(compiled) == 1, compiled
    found = re.search(r"rendered for is_incremental=(\w+)", compiled[0].read_text())
    assert found, compiled[0].read_text()
    return found.group(1).lower()


def refresh_block(messages: list[str]) -> str | None:
    """The refresh plan block of described changes, as logged (one message), or None."""
    blocks = [m for m in messages if m.startswith("spark_incremental: refresh plan for ")]
    assert len(blocks) <= 1, blocks
    return blocks[0] if blocks else None


def preview(project: DbtProject, vars: dict) -> tuple[dict, str | None, list[str]]:
    """``dbt run-operation spark_incremental.plan`` with the run's vars: its JSON line,
    its refresh plan block and its lines."""
    result = project.run("run-operation", "spark_incremental.plan",
                         vars={**vars, "spark_incremental__plan_format": "json"})
    found = [line.split(JSON_PREFIX, 1)[1] for line in result.lines if JSON_PREFIX in line]
    assert len(found) == 1, result.text()
    return json.loads(found[0]), refresh_block(result.lines), result.lines


def run(project: DbtProject, model: str, changes: list[dict] | None = None,
        full_refresh: bool = False, previewed: bool = False) -> tuple[str, str]:
    """One run of `model`; asserts one plan, rendered and acted on. Returns it. previewed:
    first the plan preview, whose entry for `model` must be the run's plan: its action, and
    the refresh plan block of described changes the run logs, the model's lines of it
    in the preview's JSON and in its table."""
    vars: dict = {"spark_incremental__now": NOW}
    if changes is not None:
        vars["spark_incremental__changes"] = changes
    shown = preview(project, vars) if previewed else None
    args = ("run", "-s", model) + (("--full-refresh",) if full_refresh else ())
    result = project.run(*args, vars=vars)
    plans = planned(result, model)
    assert len(plans) == 1, f"{model} planned {len(plans)} times:\n" + result.tail(40)
    action, incremental = plans[0]
    assert rendered_for(project, model) == incremental, result.tail(40)
    if shown is not None:
        plan_json, block, lines = shown
        entry = {e["model"]: e for e in plan_json["models"]}[model]
        assert (entry["action"], entry["plan"]["action"]) == (action, action), entry
        assert entry["plan"]["is_incremental"] == (incremental == "true"), entry
        # the block the run logs (debug level without log_plan) is the block the preview printed
        ran_block = refresh_block(result.debug_lines + result.lines)
        assert block == ran_block, f"preview:\n{block}\nrun:\n{ran_block}"
        prefix = f"  model    {model}: "
        ran = [line[len(prefix):] for line in (ran_block or "").splitlines() if line.startswith(prefix)]
        if changes:
            assert ran and entry["refresh_plan"]["lines"] == ran, (entry, ran_block)
            assert [c["table"] for c in plan_json["changes"]] == [c["table"] for c in changes], plan_json
            # the table row of the model shows them too (apply_changes: the operations; a
            # rebuild: its reason, the one the block gives)
            row = next(line for line in lines if line.startswith(model + " "))
            shown_text = "; ".join(ran) if action == "apply_changes" else ran[0].replace("full refresh, because ", "")
            assert shown_text in row, (row, ran)
        else:
            assert entry["refresh_plan"] is None and plan_json["changes"] == [], entry
    return action, incremental


def assert_equals_rebuild(spark_sql: SparkSql, schema: str, model: str) -> None:
    got = rows(spark_sql, f"select * from {fresh(spark_sql, f'{schema}.{model}')}")
    want = rows(spark_sql, REFERENCE.format(s=schema))
    assert got == want, f"{model} differs from a full rebuild:\n got  {got}\n want {want}"


def test_changes_render_the_sql_for_the_plan_they_apply(make_project, spark_sql: SparkSql) -> None:
    """A described change renders the model's SQL as not incremental: ADD_ROWS for a past
    date adds its rows (an is_incremental() filter would drop them), a replaced scope is
    re-read whole, and a change that forces a full refresh builds from every row. The plan
    preview before three of the runs shows the plan each then acts on. No events table:
    the events pipeline is off and its example models go (a plain `dbt run`, which the
    preview shows, would need it)."""
    project = make_project(spark_incremental__events_enabled=False)
    for path in sorted((project.project_dir / "models" / "derived").iterdir()):
        path.unlink()
    schema = project.schema
    project.write_model("one_plan/sources.yml", SOURCES_YML)
    project.write_model("one_plan/sales_append", APPEND_MODEL)
    sales = [(i, "P1", i, d(f"2024-01-0{i}")) for i in range(1, 6)]
    spark_sql.create_table(f"{schema}.sales", SALES, sales)
    spark_sql.create_table(f"{schema}.products", {"product": "string", "category": "string"}, [])

    assert run(project, "sales_append") == ("build", "false")
    assert_equals_rebuild(spark_sql, schema, "sales_append")

    # a plain run: the SQL's own filter reads past the mark
    sales.append((6, "P1", 6, d("2024-01-06")))
    spark_sql.insert_rows(f"{schema}.sales", SALES, [sales[-1]])
    assert run(project, "sales_append", previewed=True) == ("append", "true")
    assert_equals_rebuild(spark_sql, schema, "sales_append")

    # ADD_ROWS for a date before the mark
    sales.append((7, "P2", 70, d("2024-01-02")))
    spark_sql.insert_rows(f"{schema}.sales", SALES, [sales[-1]])
    scope = [{"table": "sales", "type": "ADD_ROWS", "scope": "sales.sale_id = 7"}]
    assert run(project, "sales_append", scope, previewed=True) == ("apply_changes", "false")
    assert_equals_rebuild(spark_sql, schema, "sales_append")

    # a change that forces a full refresh (no scope): built from every row
    sales.append((8, "P3", 80, d("2024-01-03")))
    spark_sql.insert_rows(f"{schema}.sales", SALES, [sales[-1]])
    assert run(project, "sales_append", [{"table": "sales", "type": "ADD_ROWS"}],
               previewed=True) == ("build", "false")
    assert_equals_rebuild(spark_sql, schema, "sales_append")

    # nothing new, nothing described: still one plan
    assert run(project, "sales_append") == ("append", "true")
    assert_equals_rebuild(spark_sql, schema, "sales_append")


def test_an_integer_along_gets_integer_literals(make_project, spark_sql: SparkSql) -> None:
    """along_filter() and along_min() on an int along column: the first build, appends and
    a --full-refresh all render integer literals (no date default)."""
    project = make_project()
    schema = project.schema
    project.write_model("one_plan/sources.yml", SOURCES_YML)
    project.write_model("one_plan/sales_by_id", INT_MODEL)
    sales = [(i, "P1", i, d("2024-01-01") + dt.timedelta(days=i)) for i in range(1, 4)]
    spark_sql.create_table(f"{schema}.sales", SALES, sales)
    spark_sql.create_table(f"{schema}.products", {"product": "string", "category": "string"}, [])

    assert run(project, "sales_by_id") == ("build", "false")
    assert_equals_rebuild(spark_sql, schema, "sales_by_id")
    spark_sql.insert_rows(f"{schema}.sales", SALES, [(4, "P2", 4, d("2024-01-09"))])
    assert run(project, "sales_by_id") == ("append", "true")
    assert_equals_rebuild(spark_sql, schema, "sales_by_id")
    compiled = next((project.project_dir / "target" / "compiled").rglob("sales_by_id.sql")).read_text()
    assert "sale_id >= cast('3' as int)" in compiled, compiled
    assert "1000-01-01" not in compiled, compiled
    assert run(project, "sales_by_id", full_refresh=True) == ("build", "false")
    assert_equals_rebuild(spark_sql, schema, "sales_by_id")
    compiled = next((project.project_dir / "target" / "compiled").rglob("sales_by_id.sql")).read_text()
    assert "1000-01-01" not in compiled, compiled

"""One plan: the plan a managed_incremental model's SQL is rendered with (is_incremental(),
along_min(), along_max(), along_filter()) is the plan its materialization acts on.

Each run checks, from dbt's own output: the plan was computed once for the model (one
'planned' debug line), the compiled SQL was rendered for it (a marker the model prints
with is_incremental()), and the materialization wrote what it says. Each run ends with the
table equal to a full rebuild from the same sources (sorted rows, every column).
"""

from __future__ import annotations

import datetime as dt
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


def run(project: DbtProject, model: str, changes: list[dict] | None = None,
        full_refresh: bool = False) -> tuple[str, str]:
    """One run of `model`; asserts one plan, rendered and acted on. Returns it."""
    vars: dict = {"spark_incremental__now": NOW}
    if changes is not None:
        vars["spark_incremental__changes"] = changes
    args = ("run", "-s", model) + (("--full-refresh",) if full_refresh else ())
    result = project.run(*args, vars=vars)
    plans = planned(result, model)
    assert len(plans) == 1, f"{model} planned {len(plans)} times:\n" + result.tail(40)
    action, incremental = plans[0]
    assert rendered_for(project, model) == incremental, result.tail(40)
    return action, incremental


def assert_equals_rebuild(spark_sql: SparkSql, schema: str, model: str) -> None:
    got = rows(spark_sql, f"select * from {fresh(spark_sql, f'{schema}.{model}')}")
    want = rows(spark_sql, REFERENCE.format(s=schema))
    assert got == want, f"{model} differs from a full rebuild:\n got  {got}\n want {want}"


def test_changes_render_the_sql_for_the_plan_they_apply(make_project, spark_sql: SparkSql) -> None:
    """A described change renders the model's SQL as not incremental: ADD_ROWS for a past
    date adds its rows (an is_incremental() filter would drop them), a replaced scope is
    re-read whole, and a change that forces a full refresh builds from every row."""
    project = make_project()
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
    assert run(project, "sales_append") == ("append", "true")
    assert_equals_rebuild(spark_sql, schema, "sales_append")

    # ADD_ROWS for a date before the mark
    sales.append((7, "P2", 70, d("2024-01-02")))
    spark_sql.insert_rows(f"{schema}.sales", SALES, [sales[-1]])
    scope = [{"table": "sales", "type": "ADD_ROWS", "scope": "sales.sale_id = 7"}]
    assert run(project, "sales_append", scope) == ("apply_changes", "false")
    assert_equals_rebuild(spark_sql, schema, "sales_append")

    # a change that forces a full refresh (no scope): built from every row
    sales.append((8, "P3", 80, d("2024-01-03")))
    spark_sql.insert_rows(f"{schema}.sales", SALES, [sales[-1]])
    assert run(project, "sales_append", [{"table": "sales", "type": "ADD_ROWS"}]) == ("build", "false")
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

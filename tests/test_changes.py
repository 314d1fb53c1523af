"""Change descriptions (Atoti DirectQuery's incremental refresh) on managed_incremental.

Every step changes the source tables, describes the change in spark_incremental__changes,
runs dbt, and asserts that each model equals a full rebuild from the same sources and
that the recorded refresh plan names the expected operations or full-refresh reasons.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from tests.harness.dbt import DbtProject
from tests.harness.sql import SparkSql, _sort_key

NOW = "2024-06-01 00:00:00"  # pinned; the yearly update_cron is never due after the build
YEARLY = "{'type': 'full_mutation', 'type_params': {'update_cron': '0 0 1 1 *'}}"

SALES = {"sale_id": "int", "product": "string", "amount": "int", "date": "date"}
PRODUCTS = {"product": "string", "category": "string"}


def sources_yml(*tables: str) -> str:
    """A sources file declaring `tables` of the source `shop`, in the project's schema."""
    listed = "".join(f"\n      - name: {table}" for table in tables)
    return f"""
version: 2
sources:
  - name: shop
    schema: "{{{{ target.schema }}}}"
    tables:{listed}
"""


SOURCES_YML = sources_yml("sales", "products")

# model name -> (model SQL, reference SQL over the sources in schema {s})
MODELS = {
    "fct_sales": (
        f"""{{{{ config(materialized='managed_incremental', mutability={YEARLY}, partition_by='date') }}}}

with

sales as (
    select * from {{{{ source('shop', 'sales') }}}}
),

products as (
    select * from {{{{ source('shop', 'products') }}}}
),

final as (
    select
        sales.sale_id,
        sales.product,
        products.category,
        sales.amount,
        sales.date
    from sales
    left join products on sales.product = products.product
)

select * from final
""",
        "select s.sale_id, s.product, p.category, s.amount, s.date from {s}.sales s "
        "left join {s}.products p on s.product = p.product",
    ),
    "agg_by_date": (
        f"""{{{{ config(materialized='managed_incremental', mutability={YEARLY}) }}}}

with

final as (
    select
        date,
        count(*) as sales_count,
        sum(amount) as amount
    from {{{{ ref('fct_sales') }}}}
    group by date
)

select * from final
""",
        "select date, count(*), sum(amount) from {s}.sales group by date",
    ),
    "agg_by_product": (
        f"""{{{{ config(materialized='managed_incremental', mutability={YEARLY}) }}}}

with

final as (
    select
        product,
        sum(amount) as amount
    from {{{{ source('shop', 'sales') }}}}
    group by product
)

select * from final
""",
        "select product, sum(amount) from {s}.sales group by product",
    ),
    "fct_sales_append": (
        """{{ config(materialized='managed_incremental',
                  mutability={'type': 'append_only', 'type_params': {'along': 'date'}}) }}

with

final as (
    select sale_id, product, amount, date
    from {{ source('shop', 'sales') }}
)

select * from final
""",
        "select sale_id, product, amount, date from {s}.sales",
    ),
}


def d(text: str) -> dt.date:
    return dt.date.fromisoformat(text)


def with_plan_hook(project: DbtProject) -> None:
    """The change plan comes from the on-run-start hook: spark_incremental.start_run()
    calls plan_changes() before anything runs. Check the test project has it."""
    assert '"{{ spark_incremental.start_run() }}"' in project.read_file("dbt_project.yml")


def write_models(project: DbtProject, names: list[str]) -> None:
    project.write_model("changes_test/sources.yml", SOURCES_YML)
    for name in names:
        project.write_model(f"changes_test/{name}", MODELS[name][0])


def set_sources(spark_sql: SparkSql, schema: str, sales: list[tuple], products: list[tuple]) -> None:
    spark_sql.create_table(f"{schema}.sales", SALES, sales)
    spark_sql.create_table(f"{schema}.products", PRODUCTS, products)


def rows(spark_sql: SparkSql, sql: str) -> list[tuple]:
    return sorted((tuple(r) for r in spark_sql.query(sql)), key=_sort_key)


def fresh(spark_sql: SparkSql, relation: str) -> str:
    """dbt wrote the table from its own Spark session: drop this session's cached file
    listing of it before reading (an unpartitioned table would read stale files)."""
    spark_sql.execute(f"refresh table {relation}")
    return relation


def assert_equals_rebuild(spark_sql: SparkSql, schema: str, names: list[str]) -> None:
    for name in names:
        got = rows(spark_sql, f"select * from {fresh(spark_sql, f'{schema}.{name}')}")
        want = rows(spark_sql, MODELS[name][1].format(s=schema))
        assert got == want, f"{name} differs from a full rebuild:\n got  {got}\n want {want}"


def last_plan(spark_sql: SparkSql, schema: str) -> dict[str, list[tuple[str, Any]]]:
    """model -> [(operation, condition or reason)] of the latest planning invocation."""
    fresh(spark_sql, f"{schema}.spark_incremental_refresh_plan")
    found = spark_sql.query(
        f"select model, operation, condition, reason from {schema}.spark_incremental_refresh_plan "
        f"where batch_id = (select max_by(batch_id, planned_at) from {schema}.spark_incremental_refresh_plan) "
        f"order by model, step"
    )
    plan: dict[str, list[tuple[str, Any]]] = {}
    for model, operation, condition, reason in found:
        plan.setdefault(model, []).append((operation, reason if operation == "full refresh" else condition))
    return plan


def partition_files(spark_sql: SparkSql, relation: str) -> dict[Any, set[str]]:
    files: dict[Any, set[str]] = {}
    for date, path in spark_sql.query(f"select distinct date, input_file_name() from {fresh(spark_sql, relation)}"):
        files.setdefault(date, set()).add(path)
    return files


def run_changes(project: DbtProject, changes: list[dict], select: tuple[str, ...] = ("path:models/changes_test",)):
    return project.run(
        "run", "-s", *select,
        vars={"spark_incremental__now": NOW, "spark_incremental__changes": changes,
              "spark_incremental__log_plan": True},
    )


def test_each_change_type_equals_a_full_rebuild(make_project, spark_sql: SparkSql) -> None:
    project = make_project()
    schema = project.schema
    names = list(MODELS)
    with_plan_hook(project)
    write_models(project, names)
    sales = [
        (1, "P1", 10, d("2024-01-01")),
        (2, "P2", 20, d("2024-01-01")),
        (3, "P1", 5, d("2024-01-02")),
        (4, "P3", 7, d("2024-01-02")),
    ]
    products = [("P1", "A"), ("P2", "B"), ("P3", "C")]
    set_sources(spark_sql, schema, sales, products)
    project.run("run", "-s", "path:models/changes_test", vars={"spark_incremental__now": NOW})
    assert_equals_rebuild(spark_sql, schema, names)

    # ADD_ROWS, keyed by the scope column: only the added scope is written
    files_before = partition_files(spark_sql, f"{schema}.fct_sales")
    sales += [(5, "P1", 1, d("2024-01-03")), (6, "P2", 2, d("2024-01-03"))]
    set_sources(spark_sql, schema, sales, products)
    result = run_changes(project, [{"table": "sales", "type": "ADD_ROWS", "scope": "sales.date = '2024-01-03'"}])
    assert_equals_rebuild(spark_sql, schema, names)
    plan = last_plan(spark_sql, schema)
    assert plan["fct_sales"] == [("add rows where", "(sales.date = '2024-01-03')")]
    assert plan["agg_by_date"] == [("add rows where", "(sales.date = '2024-01-03')")]
    assert plan["fct_sales_append"] == [("add rows where", "(sales.date = '2024-01-03')")]
    assert plan["agg_by_product"][0][0] == "full refresh"
    assert "reads date, which the model does not carry" in plan["agg_by_product"][0][1]
    files_after = partition_files(spark_sql, f"{schema}.fct_sales")
    assert files_after[d("2024-01-01")] == files_before[d("2024-01-01")]
    assert files_after[d("2024-01-02")] == files_before[d("2024-01-02")]
    block = result.text()
    assert "refresh plan for 1 described change(s):" in block
    assert "model    agg_by_product: full refresh, because the scope of the change on sales reads date" in block

    # ADD_ROWS_WITH_DIRTY_CONDITION: the scope overlaps old rows; nothing is counted twice
    sales += [(7, "P3", 3, d("2024-01-03"))]
    set_sources(spark_sql, schema, sales, products)
    run_changes(project, [{"table": "sales", "type": "ADD_ROWS_WITH_DIRTY_CONDITION", "scope": "sales.date >= '2024-01-03'"}])
    assert_equals_rebuild(spark_sql, schema, names)
    plan = last_plan(spark_sql, schema)
    assert plan["fct_sales"] == [("replace scope", "(sales.date >= '2024-01-03')")]
    assert plan["agg_by_date"] == [("replace scope", "(sales.date >= '2024-01-03')")]
    # only rows were added, as an append_only model declares: its scope is replaced too
    assert plan["fct_sales_append"] == [("replace scope", "(sales.date >= '2024-01-03')")]

    # UPDATE_ROWS on the joined dimension
    products = [("P1", "A"), ("P2", "Z"), ("P3", "C")]
    set_sources(spark_sql, schema, sales, products)
    run_changes(project, [{"table": "products", "type": "UPDATE_ROWS", "scope": "products.product = 'P2'"}])
    assert_equals_rebuild(spark_sql, schema, names)
    plan = last_plan(spark_sql, schema)
    assert plan["fct_sales"] == [("replace scope", "(products.product = 'P2')")]
    assert plan["agg_by_date"][0][0] == "full refresh"
    assert "reads product, which the model does not carry" in plan["agg_by_date"][0][1]
    assert set(plan) == {"fct_sales", "agg_by_date"}  # the others do not read products

    # REMOVE_ROWS: every row of 2024-01-01 is gone
    sales = [r for r in sales if r[3] != d("2024-01-01")]
    set_sources(spark_sql, schema, sales, products)
    run_changes(project, [{"table": "sales", "type": "REMOVE_ROWS", "scope": "sales.date = '2024-01-01'"}])
    assert_equals_rebuild(spark_sql, schema, names)
    plan = last_plan(spark_sql, schema)
    assert plan["fct_sales"] == [("remove where", "(sales.date = '2024-01-01')")]
    assert plan["agg_by_date"] == [("remove where", "(sales.date = '2024-01-01')")]
    assert plan["fct_sales_append"][0][0] == "full refresh"
    assert "REMOVE_ROWS says rows changed or went, but the model's mutability type 'append_only' only ever adds rows" \
        in plan["fct_sales_append"][0][1], plan
    assert spark_sql.query(f"show partitions {schema}.fct_sales") == [("date=2024-01-02",), ("date=2024-01-03",)]
    # the same description again: nothing left to remove, nothing rewritten (partitioned
    # fct_sales, unpartitioned agg_by_date), and the log says so
    again = run_changes(project, [{"table": "sales", "type": "REMOVE_ROWS", "scope": "sales.date = '2024-01-01'"}],
                        select=("fct_sales", "agg_by_date"))
    assert_equals_rebuild(spark_sql, schema, names)
    for name in ("fct_sales", "agg_by_date"):
        assert any(f"{name}: change descriptions: removed 0 rows where (sales.date = '2024-01-01') "
                   "(nothing rewritten)" in line for line in again.pkg_lines()), again.pkg_lines()

    # REMOVE_ROWS_WITH_DIRTY_CONDITION: one row of 2024-01-02 removed, the scope covers the day
    sales = [r for r in sales if r[0] != 3]
    set_sources(spark_sql, schema, sales, products)
    run_changes(project, [{"table": "sales", "type": "REMOVE_ROWS_WITH_DIRTY_CONDITION", "scope": "sales.date = '2024-01-02'"}])
    assert_equals_rebuild(spark_sql, schema, names)
    assert last_plan(spark_sql, schema)["agg_by_date"] == [("replace scope", "(sales.date = '2024-01-02')")]

    # MIXED_CHANGES: an add, an update and a remove, all inside the scope
    sales = [(r[0], r[1], 70 if r[0] == 4 else r[2], r[3]) for r in sales if r[0] != 5]
    sales += [(8, "P1", 4, d("2024-01-04"))]
    set_sources(spark_sql, schema, sales, products)
    run_changes(project, [{"table": "sales", "type": "MIXED_CHANGES",
                           "scope": "sales.date in ('2024-01-02', '2024-01-03', '2024-01-04')"}])
    assert_equals_rebuild(spark_sql, schema, names)
    plan = last_plan(spark_sql, schema)
    assert plan["fct_sales"] == [("replace scope", "(sales.date in ('2024-01-02', '2024-01-03', '2024-01-04'))")]
    assert plan["agg_by_date"] == [("replace scope", "(sales.date in ('2024-01-02', '2024-01-03', '2024-01-04'))")]

    # several change types hit one model
    sales += [(9, "P2", 9, d("2024-01-05"))]
    products = [("P1", "Y"), ("P2", "Z"), ("P3", "C")]
    set_sources(spark_sql, schema, sales, products)
    run_changes(project, [
        {"table": "sales", "type": "ADD_ROWS", "scope": "sales.date = '2024-01-05'"},
        {"table": "products", "type": "UPDATE_ROWS", "scope": "products.product = 'P1'"},
    ])
    assert_equals_rebuild(spark_sql, schema, names)
    plan = last_plan(spark_sql, schema)
    for name in ("fct_sales", "agg_by_date"):
        assert plan[name] == [("full refresh", "several change types hit the model: ADD_ROWS on sales, UPDATE_ROWS on products")]
    assert plan["fct_sales_append"] == [("add rows where", "(sales.date = '2024-01-05')")]

    # ADD_ROWS on the dimension fct_sales left-joins: the added product changes a row the
    # model holds (category null until now). Appended, sale 10 would be there twice; the
    # plan sees the model already holds rows in the scope and replaces it instead
    sales += [(10, "P4", 11, d("2024-01-06"))]
    set_sources(spark_sql, schema, sales, products)
    run_changes(project, [{"table": "sales", "type": "ADD_ROWS", "scope": "sales.date = '2024-01-06'"}])
    assert_equals_rebuild(spark_sql, schema, names)
    products += [("P4", "D")]
    set_sources(spark_sql, schema, sales, products)
    result = run_changes(project, [{"table": "products", "type": "ADD_ROWS", "scope": "products.product = 'P4'"}])
    assert_equals_rebuild(spark_sql, schema, names)
    assert last_plan(spark_sql, schema)["fct_sales"] == [("replace scope", "(products.product = 'P4')")]
    assert "the model already holds rows in the scope" in result.text(), result.tail(30)
    # removing it again: a remove-where would drop sale 10, which the left join keeps; the
    # dirty variant (documented for a table a model outer-joins) replaces the scope
    products = [p for p in products if p[0] != "P4"]
    set_sources(spark_sql, schema, sales, products)
    run_changes(project, [{"table": "products", "type": "REMOVE_ROWS_WITH_DIRTY_CONDITION",
                           "scope": "products.product = 'P4'"}])
    assert_equals_rebuild(spark_sql, schema, names)


def test_a_too_narrow_scope_is_the_users_contract(make_project, spark_sql: SparkSql) -> None:
    """ADD_ROWS promises that the scope covers all added rows. A scope that misses some
    leaves them out of the model until a later change (or refresh) covers them: the
    package trusts the description and never scans outside the scope."""
    project = make_project()
    schema = project.schema
    with_plan_hook(project)
    write_models(project, ["fct_sales"])
    sales = [(1, "P1", 10, d("2024-01-01"))]
    products = [("P1", "A")]
    set_sources(spark_sql, schema, sales, products)
    project.run("run", "-s", "fct_sales", vars={"spark_incremental__now": NOW})

    sales += [(2, "P1", 1, d("2024-01-02")), (3, "P1", 1, d("2024-01-03"))]
    set_sources(spark_sql, schema, sales, products)
    run_changes(project, [{"table": "sales", "type": "ADD_ROWS", "scope": "sales.date = '2024-01-02'"}], ("fct_sales",))
    got = rows(spark_sql, f"select sale_id from {fresh(spark_sql, f'{schema}.fct_sales')}")
    assert got == [(1,), (2,)]  # sale 3 (2024-01-03) is outside the described scope: missing

    run_changes(project, [{"table": "sales", "type": "ADD_ROWS", "scope": "sales.date = '2024-01-03'"}], ("fct_sales",))
    assert_equals_rebuild(spark_sql, schema, ["fct_sales"])


def test_a_change_never_moves_the_high_water_mark(make_project, spark_sql: SparkSql) -> None:
    """ADD_ROWS for 01-07 on an append_only model whose mark is 01-05: the 01-06 rows, loaded
    meanwhile but not described, are appended by the next plain run (the mark did not jump)."""
    project = make_project()
    schema = project.schema
    write_models(project, ["fct_sales_append"])
    sales = [(i, "P1", i, d(f"2024-01-0{i}")) for i in range(1, 6)]
    set_sources(spark_sql, schema, sales, [("P1", "A")])
    project.run("run", "-s", "fct_sales_append", vars={"spark_incremental__now": NOW})
    spark_sql.insert_rows(f"{schema}.sales", SALES, [(6, "P1", 6, d("2024-01-06")), (7, "P1", 7, d("2024-01-07"))])
    run_changes(project, [{"table": "sales", "type": "ADD_ROWS", "scope": "sales.date = '2024-01-07'"}],
                ("fct_sales_append",))
    mark = spark_sql.scalar(f"select max_by(high_water_mark, written_at) from {schema}.spark_incremental_manifest_log "
                            "where model = 'fct_sales_append' and record_type = 'managed'")
    assert mark == "2024-01-05"
    project.run("run", "-s", "fct_sales_append", vars={"spark_incremental__now": NOW})
    assert_equals_rebuild(spark_sql, schema, ["fct_sales_append"])


def test_a_retry_does_not_add_the_rows_twice(make_project, spark_sql: SparkSql) -> None:
    """A run that describes ADD_ROWS, in which one model applies them and another model
    fails, is run again with the same description: the rows are added once. A described
    change that would rebuild a model kept by full_refresh=false stops the run before any
    model applies it."""
    project = make_project()
    schema = project.schema
    write_models(project, ["fct_sales_append"])
    project.write_model("changes_test/fragile", (
        "{{ config(materialized='table') }}\n\n"
        "select * from {{ source('shop', 'sales') }}\n"
        "where {{ 'true' if var('fragile_ok', true) else 'no_such_column = 1' }}\n"))
    # kept: a model whose table full_refresh=false keeps (built here, selected again at the end)
    project.write_model("changes_test/kept", MODELS["agg_by_product"][0].replace(
        "materialized='managed_incremental',", "materialized='managed_incremental', full_refresh=false,"))
    sales = [(i, "P1", i, d(f"2024-01-0{i}")) for i in range(1, 4)]
    set_sources(spark_sql, schema, sales, [("P1", "A")])
    project.run("run", "-s", "fct_sales_append", "fragile", "kept", vars={"spark_incremental__now": NOW})
    spark_sql.insert_rows(f"{schema}.sales", SALES, [(9, "P1", 9, d("2024-01-02"))])
    change = [{"table": "sales", "type": "ADD_ROWS", "scope": "sales.sale_id = 9"}]
    failed = project.run(
        "run", "-s", "fct_sales_append", "fragile", expect_success=False,
        vars={"spark_incremental__now": NOW, "spark_incremental__changes": change, "fragile_ok": False})
    assert "no_such_column" in failed.text()
    assert_equals_rebuild(spark_sql, schema, ["fct_sales_append"])
    retried = project.run(
        "run", "-s", "fct_sales_append", "fragile",
        vars={"spark_incremental__now": NOW, "spark_incremental__changes": change, "spark_incremental__log_plan": True})
    assert "model    fct_sales_append: replace scope (sales.sale_id = 9)" in retried.text(), retried.tail(40)
    assert_equals_rebuild(spark_sql, schema, ["fct_sales_append"])

    # a change that would rebuild `kept` (its rows do not carry sale_id) stops the run in the
    # start hook, before fct_sales_append adds the rows
    spark_sql.insert_rows(f"{schema}.sales", SALES, [(10, "P1", 10, d("2024-01-03"))])
    refused = project.run(
        "run", "-s", "fct_sales_append", "kept", expect_success=False,
        vars={"spark_incremental__now": NOW,
              "spark_incremental__changes": [{"table": "sales", "type": "ADD_ROWS", "scope": "sales.sale_id = 10"}]})
    text = refused.text() + "\n" + str(refused.exception)
    assert ("model 'kept' must be rebuilt (full refresh: the scope of the change on sales reads sale_id" in text
            and "its config full_refresh=false keeps its table" in text), refused.tail(40)
    assert "fct_sales_append" not in refused.statuses, refused.statuses
    assert spark_sql.scalar(f"select count(*) from {fresh(spark_sql, f'{schema}.fct_sales_append')}"
                            " where sale_id = 10") == 0


def test_changes_file_without_the_hook(make_project, spark_sql: SparkSql, tmp_path) -> None:
    """The change list in a YAML file (read by Spark), and no on-run-start hook: the
    materialization plans lazily, logs and records the same plan."""
    project = make_project()
    schema = project.schema
    write_models(project, ["fct_sales", "agg_by_product"])
    sales = [(1, "P1", 10, d("2024-01-01"))]
    products = [("P1", "A"), ("P2", "B")]
    set_sources(spark_sql, schema, sales, products)
    project.run("run", "-s", "fct_sales", "agg_by_product", vars={"spark_incremental__now": NOW})

    sales += [(2, "P2", 5, d("2024-01-02"))]
    set_sources(spark_sql, schema, sales, products)
    changes = tmp_path / "changes.yml"
    changes.write_text(
        "changes:\n"
        "  - table: shop.sales\n"
        "    type: add_rows\n"
        "    scope: \"sales.date = '2024-01-02'\"\n"
    )
    result = project.run(
        "run", "-s", "fct_sales", "agg_by_product",
        vars={"spark_incremental__now": NOW, "spark_incremental__changes_file": str(changes)},
    )
    assert_equals_rebuild(spark_sql, schema, ["fct_sales", "agg_by_product"])
    plan = last_plan(spark_sql, schema)
    assert plan["fct_sales"] == [("add rows where", "(sales.date = '2024-01-02')")]
    assert plan["agg_by_product"][0][0] == "full refresh"
    # debug level without spark_incremental__log_plan: the block is not in the info lines
    assert not any("refresh plan for" in line for line in result.pkg_lines())
    assert any("refresh plan for 1 described change(s)" in line for line in result.debug_lines)


BAD_CHANGES = [
    ([{"table": "sales", "type": "ADD_ROW", "scope": "sales.date = '2024-01-02'"}],
     "unknown change type 'ADD_ROW'. Allowed: ADD_ROWS, ADD_ROWS_WITH_DIRTY_CONDITION"),
    ([{"table": "sales", "scope": "sales.date = '2024-01-02'"}],
     "change #1 on 'sales' needs a type, one of ADD_ROWS, ADD_ROWS_WITH_DIRTY_CONDITION"),
    ([{"table": "salez", "type": "ADD_ROWS", "scope": "salez.date = '2024-01-02'"}],
     "change on table 'salez': no source, seed, snapshot or model of that name in this project."
     " The tables managed_incremental models read directly: shop.products, shop.sales"),
    ([{"table": "sales", "type": "ADD_ROWS", "scope": "sales.nope = 1"}],
     "the scope reads column `sales`.`nope`, which"),
    ([{"table": "sales", "type": "ADD_ROWS", "scope": "sales.date = '2024-01-02'; drop table x"}],
     "contains ';' (a second statement)"),
    ([{"table": "sales", "type": "ADD_ROWS", "scope": "sales.amount + 1"}],
     "the scope is not a boolean expression"),
    # Spark's parser rejects it: the explain fails, the run stops with Spark's message
    ([{"table": "sales", "type": "UPDATE_ROWS", "scope": "sales.date = = '2024-01-05'"}],
     "PARSE_SYNTAX_ERROR"),
    # a raw literal r'\' ends at its first quote in Spark: with escapes allowed, the rest
    # would leave the where clause and comment out what follows
    ([{"table": "sales", "type": "ADD_ROWS", "scope": "sales.date = r'\\' or true) --'"}],
     "contains a backslash"),
    ([{"table": "sales", "type": "ADD_ROWS", "scope": "`reflect`('java.lang.Thread', 'dumpStack') is null"}],
     "must not call reflect"),
]


def test_a_table_described_twice_gets_one_change(make_project, spark_sql: SparkSql) -> None:
    """A loader's queue of descriptions since the last run that succeeded may name a table
    twice: the package merges them into one change, the union of the scopes, of the
    narrowest type that covers both (an add and a removal: MIXED_CHANGES; an add and a
    dirty add: the dirty add), and says so."""
    project = make_project()
    schema = project.schema
    with_plan_hook(project)
    write_models(project, ["fct_sales"])
    sales = [(1, "P1", 10, d("2024-01-01")), (2, "P2", 20, d("2024-01-01")), (3, "P1", 30, d("2024-01-02"))]
    products = [("P1", "A"), ("P2", "B")]
    set_sources(spark_sql, schema, sales, products)
    project.run("run", "-s", "fct_sales", vars={"spark_incremental__now": NOW})

    # one sale of 2024-01-01 removed, a day loaded: named as 'sales', then as 'shop.sales'
    sales = [row for row in sales if row[0] != 2] + [(4, "P2", 40, d("2024-01-03"))]
    set_sources(spark_sql, schema, sales, products)
    result = run_changes(project, [
        {"table": "sales", "type": "ADD_ROWS", "scope": "sales.date = '2024-01-03'"},
        {"table": "shop.sales", "type": "REMOVE_ROWS_WITH_DIRTY_CONDITION", "scope": "sales.date = '2024-01-01'"},
    ], select=("fct_sales",))
    assert any("change #2 on 'shop.sales' describes the table of change #1 on 'sales'"
               " (source.spark_incremental_integration_tests.shop.sales): merged into one MIXED_CHANGES of scope"
               " (sales.date = '2024-01-03') or (sales.date = '2024-01-01')"
               " (ADD_ROWS and REMOVE_ROWS_WITH_DIRTY_CONDITION)" in line for line in result.pkg_lines()), \
        result.pkg_lines()
    assert last_plan(spark_sql, schema)["fct_sales"] == [
        ("replace scope", "((sales.date = '2024-01-03') or (sales.date = '2024-01-01'))")]
    assert_equals_rebuild(spark_sql, schema, ["fct_sales"])

    # a clean add and a dirty add of the same table: the dirty add, the union of the scopes
    sales += [(5, "P1", 50, d("2024-01-04")), (6, "P2", 60, d("2024-01-02"))]
    set_sources(spark_sql, schema, sales, products)
    run_changes(project, [
        {"table": "sales", "type": "ADD_ROWS", "scope": "sales.sale_id = 5"},
        {"table": "sales", "type": "ADD_ROWS_WITH_DIRTY_CONDITION", "scope": "sales.date >= '2024-01-02'"},
    ], select=("fct_sales",))
    assert last_plan(spark_sql, schema)["fct_sales"] == [
        ("replace scope", "((sales.sale_id = 5) or (sales.date >= '2024-01-02'))")]
    assert_equals_rebuild(spark_sql, schema, ["fct_sales"])


def test_bad_change_input_stops_the_run_before_anything_is_written(make_project, spark_sql: SparkSql) -> None:
    project = make_project()
    schema = project.schema
    with_plan_hook(project)
    write_models(project, ["fct_sales"])
    set_sources(spark_sql, schema, [(1, "P1", 10, d("2024-01-01"))], [("P1", "A")])
    for changes, message in BAD_CHANGES:
        result = project.run(
            "run", "-s", "fct_sales",
            vars={"spark_incremental__now": NOW, "spark_incremental__changes": changes},
            expect_success=False,
        )
        text = result.text() + "\n" + str(result.exception)
        assert message in text, f"expected {message!r} in:\n{result.tail(30)}\n{result.exception}"
        assert not spark_sql.relation_exists(f"{schema}.fct_sales")
        assert not spark_sql.relation_exists(f"{schema}.spark_incremental_refresh_plan")


# partitioned by month: a scope on `date` reads a data column of the target, not its partition
FCT_SALES_MONTHLY = f"""{{{{ config(materialized='managed_incremental', mutability={YEARLY}, partition_by='month') }}}}

with

final as (
    select
        sale_id,
        product,
        amount,
        date,
        trunc(date, 'MM') as month
    from {{{{ source('shop', 'sales') }}}}
)

select * from final
"""


def test_a_replay_reads_only_the_scope_of_the_target(make_project, spark_sql: SparkSql, spark_server) -> None:
    """A change whose scope reads a data column of the target (a day, in monthly
    partitions): the check for rows already in the scope (clean ADD_ROWS) and the search
    for the partitions a replace touches filter the target with the bare scope, which
    Spark pushes to the parquet scan, so row groups outside the scope are skipped; the
    old rows are read from the touched partition only. Spark's metrics bound the rows read
    from the target; the table equals a rebuild after every change, a row on which the
    scope is null included."""
    from benchmarks.metrics import SqlMetrics

    project = make_project()
    schema = project.schema
    with_plan_hook(project)
    project.write_model("changes_test/sources.yml", SOURCES_YML)
    project.write_model("changes_test/fct_sales_monthly", FCT_SALES_MONTHLY)
    sales = [(month * 100 + day * 2 + k, "P1", day, d(f"2024-{month:02d}-{day:02d}"))
             for month in (1, 2, 3) for day in range(1, 11) for k in (0, 1)]
    # a sale without a date: every scope is null on it (the bare scope drops it as the
    # flag's false does, so it stays), and it sits in the null partition
    sales += [(999, "P1", 1, None)]
    set_sources(spark_sql, schema, sales, [("P1", "A")])
    project.run("run", "-s", "fct_sales_monthly", vars={"spark_incremental__now": NOW})
    relation = f"{schema}.fct_sales_monthly"
    reference = ("select sale_id, product, amount, date, trunc(date, 'MM') "
                 f"from {schema}.sales")

    def target_rows(change: dict[str, str]) -> list[Any]:
        """Run one change; return the scans of the target in that run (before this test reads it)."""
        set_sources(spark_sql, schema, sales, [("P1", "A")])
        mark = probe.mark()
        run_changes(project, [change], ("fct_sales_monthly",))
        scans = probe.reads_since(mark, schema, "fct_sales_monthly").scan_details
        assert rows(spark_sql, f"select * from {fresh(spark_sql, relation)}") == rows(spark_sql, reference)
        return scans

    probe = SqlMetrics(spark_server.ui_url)
    # a clean add of a new day: the check for rows already in the scope skips every row group
    sales += [(900, "P1", 5, d("2024-03-15")), (901, "P1", 6, d("2024-03-15"))]
    scans = target_rows({"table": "sales", "type": "ADD_ROWS", "scope": "sales.date = '2024-03-15'"})
    assert last_plan(spark_sql, schema)["fct_sales_monthly"] == [("add rows where", "(sales.date = '2024-03-15')")]
    assert sum(scan.rows for scan in scans) == 0, [(s.partitions, s.rows, s.desc[:120]) for s in scans]

    # an update of one February day (20 rows a month): the touched-partition search reads the
    # row groups the scope may match (February's), the old rows come from the touched
    # partition only (a literal predicate on it); no scan of the target reads more than a
    # month (the code before read every row, twice)
    sales = [(i, p, a + 100 if day == d("2024-02-05") else a, day) for i, p, a, day in sales]
    scans = target_rows({"table": "sales", "type": "UPDATE_ROWS", "scope": "sales.date = '2024-02-05'"})
    assert last_plan(spark_sql, schema)["fct_sales_monthly"] == [("replace scope", "(sales.date = '2024-02-05')")]
    assert scans and max(scan.rows for scan in scans) <= 20, [(s.partitions, s.rows, s.desc[:120]) for s in scans]
    # and no scan lists files it does not read (a filter known only at run time would list
    # every partition's files first)
    assert all(scan.listed == scan.files for scan in scans), [(s.listed, s.files, s.desc[:120]) for s in scans]

    # a removal of one January day
    sales = [row for row in sales if row[3] != d("2024-01-03")]
    scans = target_rows({"table": "sales", "type": "REMOVE_ROWS", "scope": "sales.date = '2024-01-03'"})
    assert last_plan(spark_sql, schema)["fct_sales_monthly"] == [("remove where", "(sales.date = '2024-01-03')")]
    assert scans and max(scan.rows for scan in scans) <= 20, [(s.partitions, s.rows, s.desc[:120]) for s in scans]
    assert all(scan.listed == scan.files for scan in scans), [(s.listed, s.files, s.desc[:120]) for s in scans]


def built_with_append(make_project, spark_sql: SparkSql) -> tuple[DbtProject, list[tuple], list[tuple]]:
    """fct_sales and fct_sales_append built from two sales (2024-01-01 and 2024-01-03; the
    append_only model's high-water mark is 2024-01-03): (project, sales, products)."""
    project = make_project()
    with_plan_hook(project)
    names = ["fct_sales", "fct_sales_append"]
    write_models(project, names)
    sales = [(1, "P1", 10, d("2024-01-01")), (2, "P2", 20, d("2024-01-03"))]
    products = [("P1", "A"), ("P2", "B")]
    set_sources(spark_sql, project.schema, sales, products)
    project.run("run", "-s", *names, vars={"spark_incremental__now": NOW})
    return project, sales, products


def test_a_day_removed_and_loaded_again_is_added_again(make_project, spark_sql: SparkSql) -> None:
    """An operator removes a bad load of a day and loads the day again, describing each:
    ADD_ROWS, REMOVE_ROWS, then ADD_ROWS with the first load's scope. The append_only model
    is rebuilt by the removal (it cannot remove rows), and the day lies below its
    high-water mark. The second ADD_ROWS is a new change, not a retry of the first (the
    model holds no row in its scope), and its rows are added. (The state alone used to
    tell a retry, and the reload was skipped: its rows were missing.)"""
    project, sales, products = built_with_append(make_project, spark_sql)
    schema = project.schema
    names = ["fct_sales", "fct_sales_append"]
    day = {"table": "sales", "type": "ADD_ROWS", "scope": "sales.date = '2024-01-02'"}

    sales += [(3, "P1", 1, d("2024-01-02")), (4, "P2", 2, d("2024-01-02"))]
    set_sources(spark_sql, schema, sales, products)
    run_changes(project, [day], tuple(names))
    assert_equals_rebuild(spark_sql, schema, names)
    assert last_plan(spark_sql, schema)["fct_sales_append"] == [("add rows where", "(sales.date = '2024-01-02')")]

    sales = [row for row in sales if row[3] != d("2024-01-02")]
    set_sources(spark_sql, schema, sales, products)
    run_changes(project, [{"table": "sales", "type": "REMOVE_ROWS", "scope": "sales.date = '2024-01-02'"}], tuple(names))
    assert_equals_rebuild(spark_sql, schema, names)
    assert last_plan(spark_sql, schema)["fct_sales_append"][0][0] == "full refresh"

    sales += [(5, "P1", 7, d("2024-01-02"))]
    set_sources(spark_sql, schema, sales, products)
    result = run_changes(project, [day], tuple(names))
    assert not any("already applied" in line for line in result.pkg_lines()), result.tail(40)
    assert last_plan(spark_sql, schema)["fct_sales_append"] == [("add rows where", "(sales.date = '2024-01-02')")]
    assert_equals_rebuild(spark_sql, schema, names)

    # run again with the same description (a retry): the model holds rows in the scope,
    # so the scope is replaced and nothing is added twice
    run_changes(project, [day], tuple(names))
    assert last_plan(spark_sql, schema)["fct_sales_append"] == [("replace scope", "(sales.date = '2024-01-02')")]
    assert_equals_rebuild(spark_sql, schema, names)


def test_a_later_load_with_the_same_description_is_added(make_project, spark_sql: SparkSql) -> None:
    """A loader describes each load by its day: `ADD_ROWS` where `sales.date = '2024-01-02'`,
    then a second load into the same day with the very same description. The append_only
    model holds the first load's rows in the scope: appended, they would be there twice.
    The plan replaces the day, as for any model, instead of rebuilding the model. (Until
    2026-12-05 (4) the description and the model's state called the second load a retry
    and its rows were missing; then a fingerprint of the changed table's rows told them
    apart, and the model was rebuilt.) A retry of that run, and the same description once
    more with nothing new loaded, replace the day again: same table."""
    project, sales, products = built_with_append(make_project, spark_sql)
    schema = project.schema
    names = ["fct_sales", "fct_sales_append"]
    day = {"table": "sales", "type": "ADD_ROWS", "scope": "sales.date = '2024-01-02'"}
    replaced = ("replace scope", "(sales.date = '2024-01-02')")

    sales += [(3, "P1", 1, d("2024-01-02"))]
    set_sources(spark_sql, schema, sales, products)
    run_changes(project, [day], tuple(names))
    assert last_plan(spark_sql, schema)["fct_sales_append"] == [("add rows where", "(sales.date = '2024-01-02')")]
    assert_equals_rebuild(spark_sql, schema, names)

    sales += [(4, "P2", 2, d("2024-01-02"))]
    set_sources(spark_sql, schema, sales, products)
    result = run_changes(project, [day], tuple(names))
    plan = last_plan(spark_sql, schema)
    assert plan["fct_sales_append"] == [replaced], result.tail(40)
    assert plan["fct_sales"] == [replaced], plan
    assert "an earlier load into the scope" in result.text(), result.tail(40)
    assert_equals_rebuild(spark_sql, schema, names)

    # a retry of that run (as after another model failed): replaced again, same table
    run_changes(project, [day], tuple(names))
    assert last_plan(spark_sql, schema)["fct_sales_append"] == [replaced]
    assert_equals_rebuild(spark_sql, schema, names)

    # a third load into a new day is added in place
    sales += [(5, "P1", 3, d("2024-01-04"))]
    set_sources(spark_sql, schema, sales, products)
    later = {"table": "sales", "type": "ADD_ROWS", "scope": "sales.date = '2024-01-04'"}
    run_changes(project, [later], tuple(names))
    assert last_plan(spark_sql, schema)["fct_sales_append"] == [("add rows where", "(sales.date = '2024-01-04')")]
    assert_equals_rebuild(spark_sql, schema, names)

    # the same description again, nothing new loaded: nothing is added twice
    run_changes(project, [later], tuple(names))
    assert last_plan(spark_sql, schema)["fct_sales_append"] == [("replace scope", "(sales.date = '2024-01-04')")]
    assert_equals_rebuild(spark_sql, schema, names)


# append_only, left-joined to products: an added product changes rows the model holds
FCT_SALES_APPEND_JOINED = """{{ config(materialized='managed_incremental',
                  mutability={'type': 'append_only', 'type_params': {'along': 'date'}}) }}

with

sales as (
    select * from {{ source('shop', 'sales') }}
),

products as (
    select * from {{ source('shop', 'products') }}
),

final as (
    select
        sales.sale_id,
        sales.product,
        products.category,
        sales.date
    from sales
    left join products on sales.product = products.product
)

select * from final
"""


def test_an_adding_model_that_holds_the_scope_replaces_it(make_project, spark_sql: SparkSql) -> None:
    """A clean ADD_ROWS on a table that an append_only model outer-joins: the model already
    holds rows in the scope (sales of the new product, category null). Appended, each such
    sale would be there twice (with and without its category); the plan replaces the
    scope instead and says why. (Until 2026-12-05 (5) such a model was rebuilt.)"""
    project = make_project()
    schema = project.schema
    with_plan_hook(project)
    project.write_model("changes_test/sources.yml", SOURCES_YML)
    project.write_model("changes_test/fct_sales_append_joined", FCT_SALES_APPEND_JOINED)
    sales = [(1, "P1", 10, d("2024-01-01")), (2, "P4", 20, d("2024-01-02"))]
    products = [("P1", "A")]
    set_sources(spark_sql, schema, sales, products)
    select = ("fct_sales_append_joined",)
    project.run("run", "-s", *select, vars={"spark_incremental__now": NOW})
    products += [("P4", "D")]
    set_sources(spark_sql, schema, sales, products)
    result = run_changes(project, [{"table": "products", "type": "ADD_ROWS", "scope": "products.product = 'P4'"}], select)
    plan = last_plan(spark_sql, schema)["fct_sales_append_joined"]
    assert plan == [("replace scope", "(products.product = 'P4')")], plan
    assert "the model already holds rows in the scope (an outer join that the added rows now match" \
        in result.text(), result.tail(40)
    got = rows(spark_sql, f"select * from {fresh(spark_sql, f'{schema}.fct_sales_append_joined')}")
    assert got == [(1, "P1", "A", d("2024-01-01")), (2, "P4", "D", d("2024-01-02"))], got


def test_a_model_run_before_its_upstream_adds_the_rows_when_run_again(make_project, spark_sql: SparkSql) -> None:
    """A described ADD_ROWS run first for part of the models, a model among them before its
    upstream model (agg_by_date reads fct_sales), then for all with the same description,
    as the plan's 'unselected' line asks. The first run adds nothing to agg_by_date
    (fct_sales does not hold the rows yet); the second must add them, although the model's
    state records the same description as applied (it holds no row in the scope)."""
    project = make_project()
    schema = project.schema
    with_plan_hook(project)
    names = ["fct_sales", "agg_by_date"]
    write_models(project, names)
    sales = [(1, "P1", 10, d("2024-01-01"))]
    products = [("P1", "A")]
    set_sources(spark_sql, schema, sales, products)
    project.run("run", "-s", *names, vars={"spark_incremental__now": NOW})
    sales += [(2, "P1", 5, d("2024-01-02"))]
    set_sources(spark_sql, schema, sales, products)
    change = [{"table": "sales", "type": "ADD_ROWS", "scope": "sales.date = '2024-01-02'"}]
    run_changes(project, change, ("agg_by_date",))
    assert rows(spark_sql, f"select * from {fresh(spark_sql, f'{schema}.agg_by_date')}") == [(d("2024-01-01"), 1, 10)]
    run_changes(project, change, tuple(names))
    assert last_plan(spark_sql, schema)["agg_by_date"] == [("add rows where", "(sales.date = '2024-01-02')")]
    assert_equals_rebuild(spark_sql, schema, names)


# the test project's own append_manifest_rows (dispatched before the package's): a run
# started with test_pause pauses just before it appends its lock row, after start_run's
# check of the plan, until the table test_pause_release holds a row
PAUSE_BEFORE_LOCK = """{% macro default__append_manifest_rows(rows) -%}
  {%- if rows | selectattr('action', 'equalto', 'run started') | list -%}
    {%- do test_pause() -%}
  {%- endif -%}
  {{- return(spark_incremental.default__append_manifest_rows(rows)) -}}
{%- endmacro %}
"""


def pause_before_lock(project: DbtProject, spark_sql: SparkSql, table: str) -> str:
    """Install PAUSE_BEFORE_LOCK in the project, and create the table whose first row ends
    the pause (returned)."""
    project.write_file("macros/pause_before_lock.sql", PAUSE_BEFORE_LOCK)
    text = project.read_file("dbt_project.yml")
    if "dispatch:" not in text:
        name = next(line.split(":", 1)[1].strip() for line in text.splitlines() if line.startswith("name:"))
        project.write_file("dbt_project.yml", text + (
            f"\ndispatch:\n  - macro_namespace: spark_incremental\n    search_order: ['{name}', 'spark_incremental']\n"))
    release = f"{project.schema}.{table}"
    spark_sql.execute(f"create table {release} (released int) using parquet")
    return release


def test_a_run_that_ends_while_another_waits_for_the_lock_is_not_applied_twice(
        make_project, spark_sql: SparkSql) -> None:
    """Two runs with the same description: the first checks its plan (add the day's rows:
    the model holds none), then the second takes the run lock, adds the rows and ends
    before the first takes the lock. The first plans again under the lock: the model now
    holds rows in the scope, so it replaces the scope and adds nothing twice. (A plan made
    only before the lock added the day a second time.) Then the same race where the second
    run describes the same rows in other words, on a model whose config keeps its table:
    the first run's plan under the lock replaces the scope too, which the config allows.
    (Until 2026-12-05 (5) that plan was a rebuild, which the config refused.)"""
    from tests.test_faults import open_locks, wait_for

    project = make_project()
    schema = project.schema
    with_plan_hook(project)
    names = ["fct_sales_append", "kept_append"]
    write_models(project, names[:1])
    project.write_model("changes_test/kept_append", MODELS["fct_sales_append"][0].replace(
        "materialized='managed_incremental',", "materialized='managed_incremental', full_refresh=false,"))
    want_sql = MODELS["fct_sales_append"][1].format(s=schema)

    def assert_both_equal_a_rebuild() -> None:
        for name in names:
            assert rows(spark_sql, f"select * from {fresh(spark_sql, f'{schema}.{name}')}") == \
                rows(spark_sql, want_sql), name

    sales = [(1, "P1", 10, d("2024-01-01"))]
    set_sources(spark_sql, schema, sales, [("P1", "A")])
    project.run("run", "-s", *names, vars={"spark_incremental__now": NOW})
    release = pause_before_lock(project, spark_sql, "test_pause_release")

    sales += [(2, "P1", 5, d("2024-01-02")), (3, "P1", 6, d("2024-01-02"))]
    set_sources(spark_sql, schema, sales, [("P1", "A")])
    changes = [{"table": "sales", "type": "ADD_ROWS", "scope": "sales.date = '2024-01-02'"}]
    run_vars = {"spark_incremental__now": NOW, "spark_incremental__changes": changes,
                "spark_incremental__log_plan": True}
    first = project.run_subprocess("run", "-s", *names, "--target-path", "target_first",
                                   vars={**run_vars, "test_pause": True, "test_pause_release": release})
    wait_for(first, project, "test_pause: started")
    second = project.run("run", "-s", *names, vars=run_vars)
    assert set(second.statuses.values()) == {"success"}, second.tail(40)
    assert_both_equal_a_rebuild()
    spark_sql.execute(f"insert into {release} values (1)")
    assert first.wait(timeout=600) == 0, project.subprocess_output(first)[-3000:]
    assert_both_equal_a_rebuild()
    output = project.subprocess_output(first)
    assert "the refresh plan changed between the check before the run lock and the plan under it" in output, \
        output[-3000:]
    assert "model    fct_sales_append: replace scope (sales.date = '2024-01-02')" in output, output[-3000:]

    # the same rows in other words: the plan under the lock replaces the scope
    release = pause_before_lock(project, spark_sql, "test_pause_release_2")
    sales += [(4, "P1", 7, d("2024-01-03"))]
    set_sources(spark_sql, schema, sales, [("P1", "A")])
    by_day = [{"table": "sales", "type": "ADD_ROWS", "scope": "sales.date = '2024-01-03'"}]
    by_id = [{"table": "sales", "type": "ADD_ROWS", "scope": "sales.sale_id = 4"}]
    first = project.run_subprocess(
        "run", "-s", "kept_append", "--target-path", "target_first",
        vars={**run_vars, "spark_incremental__changes": by_day, "test_pause": True, "test_pause_release": release})
    wait_for(first, project, "test_pause: started")
    project.run("run", "-s", *names, vars={**run_vars, "spark_incremental__changes": by_id})
    spark_sql.execute(f"insert into {release} values (1)")
    assert first.wait(timeout=600) == 0, project.subprocess_output(first)[-3000:]
    output = project.subprocess_output(first)
    assert "model    kept_append: replace scope (sales.date = '2024-01-03')" in output, output[-3000:]
    assert open_locks(spark_sql, project) == []
    assert_both_equal_a_rebuild()

"""Tests on a run's slice (issue 19, part 3): dbt tests whose `where` is the token
``__spark_incremental_run_slice__`` check only the rows the tested model's last run
wrote (spark_incremental.run_slice_predicate, put in place by the package's
run_slice_where_subquery, which the project's own get_where_subquery calls: the opt-in
the README shows; the package overrides none of dbt's macros).

One project: the integration project's derived models (sessions, page_views: fed by the
events pipeline) and two managed_incremental models on a plain source table (append_only
along ds, daily time intervals). Two runs (the first a dbt build: its tests check the whole
table), then a failing row outside each model's slice
(the tests pass) and one inside (they fail), then a run with nothing new (dbt build).
"""

from __future__ import annotations

import json
from typing import Any, Callable

from tests import generator as gen
from tests.harness.dbt import DbtProject, DbtResult
from tests.harness.sql import SparkSql
from tests.test_sessions import BASE_VARS


# the project's one-macro opt-in (README, "Testing only what a run wrote")
WHERE_OPT_IN = """{% macro get_where_subquery(relation) -%}
  {{ return(spark_incremental.run_slice_where_subquery(relation)) }}
{%- endmacro %}
"""

TOKEN = "__spark_incremental_run_slice__"

# the derived models' tests, on this run's slice only
DERIVED_YML = f"""
version: 2
models:
  - name: sessions
    columns:
      - name: session_identifier
        data_tests:
          - unique:
              config:
                where: "{TOKEN}"
  - name: page_views
    columns:
      - name: page_view_id
        data_tests:
          - unique:
              config:
                where: "{TOKEN}"
"""

ORDERS = {"order_id": "int", "ds": "date", "status": "string"}

ORDERS_YML = f"""
version: 2
sources:
  - name: shop
    schema: "{{{{ target.schema }}}}"
    tables:
      - name: orders
models:
  - name: orders_appended
    columns:
      - name: status
        data_tests:
          - not_null:
              config:
                where: "{TOKEN}"
  - name: orders_daily
    columns:
      - name: first_status
        data_tests:
          - not_null:
              config:
                where: "{TOKEN} and order_count > 0"
"""

ORDERS_APPENDED = """{{ config(materialized='managed_incremental',
    mutability={'type': 'append_only', 'type_params': {'along': 'ds'}}) }}

select order_id, ds, status from {{ source('shop', 'orders') }}
"""

ORDERS_DAILY = """{{ config(materialized='managed_incremental',
    time_column='ds', start='2021-01-01', interval_unit='day', batch_size=1) }}

with

orders as (
    select * from {{ source('shop', 'orders') }}
    where ds between {{ spark_incremental.start_ds() }} and {{ spark_incremental.end_ds() }}
),

final as (
    select
        ds,
        count(*) as order_count,
        min(status) as first_status
    from orders
    group by ds
)

select * from final
"""


def _now(i: int) -> dict[str, str]:
    return {"spark_incremental__now": gen.BATCH_TIMES[i].strftime("%Y-%m-%d %H:%M:%S")}


def _orders(day: int) -> list[tuple]:
    return [(day * 10 + i, f"2021-01-{day:02d}", "paid") for i in range(3)]


SLICED = {"sessions", "page_views", "orders_appended", "orders_daily"}


def _test_statuses(result: DbtResult) -> dict[str, str]:
    """{tested model: status} of the sliced tests that ran (one per model; the package's
    own tests of its base models run too and are left out)."""
    out = {}
    for r in result.result.results:
        node = r.node
        model = (getattr(node, "attached_node", None) or "").split(".")[-1]
        if node.resource_type == "test" and model in SLICED:
            out[model] = str(getattr(r.status, "value", r.status))
    return out


def _slice(spark_sql: SparkSql, project: DbtProject, model: str) -> dict[str, Any]:
    state = spark_sql.scalar(
        f"select state from {project.relation('spark_incremental_manifest_log')}"
        f" where model = '{model}' and record_type = 'managed' order by written_at desc limit 1")
    return json.loads(state)["slice"]


def _session(spark_sql: SparkSql, project: DbtProject, in_slice: bool) -> str:
    sessions, this_run = project.relation("sessions"), project.relation("spark_incremental_base_sessions_this_run")
    return spark_sql.scalar(
        f"select min(session_identifier) from {sessions} where session_identifier"
        f" {'' if in_slice else 'not '}in (select session_identifier from {this_run})")


def _duplicate_session(spark_sql: SparkSql, project: DbtProject, session: str) -> None:
    sessions = project.relation("sessions")
    spark_sql.execute(f"insert into {sessions} select * from {sessions} where session_identifier = '{session}'")
    spark_sql.execute(f"refresh table {sessions}")
    assert spark_sql.scalar(f"select count(*) from {sessions} where session_identifier = '{session}'") == 2


def _bad_rows(spark_sql: SparkSql, project: DbtProject, ds: str) -> None:
    spark_sql.execute(f"insert into {project.relation('orders_appended')} values (999, date'{ds}', null)")
    spark_sql.execute(f"insert into {project.relation('orders_daily')} values (date'{ds}', 1, null)")


def test_tests_check_only_the_rows_the_run_wrote(
    make_project: Callable[..., DbtProject], spark_sql: SparkSql
) -> None:
    data = gen.generate()
    project = make_project(**BASE_VARS)
    project.write_file("macros/get_where_subquery.sql", WHERE_OPT_IN)
    project.write_model("derived/derived.yml", DERIVED_YML)
    project.write_model("orders/orders.yml", ORDERS_YML)
    project.write_model("orders/orders_appended", ORDERS_APPENDED)
    project.write_model("orders/orders_daily", ORDERS_DAILY)
    spark_sql.create_table(project.relation("events"), gen.EVENT_COLUMNS, data.batches[0].rows())
    spark_sql.create_table(project.relation("orders"), ORDERS, _orders(1) + _orders(2))

    # run 1 (state 1, a first build; dbt build, each test right after its model): the
    # append-only model's slice is the whole table (once `where (true))`, which Spark 4.3
    # reads as an alias `where` with a column list: ASSIGNMENT_ARITY_MISMATCH)
    first = project.run("build", vars=_now(0))
    assert _slice(spark_sql, project, "orders_appended") == {"kind": "table"}
    assert _test_statuses(first) == {"sessions": "pass", "page_views": "pass",
                                     "orders_appended": "pass", "orders_daily": "pass"}
    assert _slice(spark_sql, project, "orders_daily")["ranges"] == [
        ["2021-01-01 00:00:00", "2021-01-02 00:00:00"], ["2021-01-02 00:00:00", "2021-01-03 00:00:00"]]
    sessions_1 = {r[0] for r in spark_sql.query(f"select session_identifier from {project.relation('sessions')}")}
    this_run_1 = {r[0] for r in spark_sql.query(
        f"select session_identifier from {project.relation('spark_incremental_base_sessions_this_run')}")}
    assert sessions_1 and sessions_1 <= this_run_1

    # run 2 (state 4): the next load batch, and the next day of orders
    spark_sql.insert_rows(project.relation("events"), gen.EVENT_COLUMNS, data.batches[1].rows())
    spark_sql.insert_rows(project.relation("orders"), ORDERS, _orders(3))
    project.run("run", vars=_now(1))
    assert _slice(spark_sql, project, "orders_appended") == {
        "kind": "along", "column": "ds", "type": "date", "lower": "2021-01-02", "lower_op": ">"}
    assert _slice(spark_sql, project, "orders_daily")["ranges"] == [["2021-01-03 00:00:00", "2021-01-04 00:00:00"]]

    # a failing row outside each slice (written by run 1 only): every test passes
    outside = _session(spark_sql, project, in_slice=False)
    _duplicate_session(spark_sql, project, outside)
    _bad_rows(spark_sql, project, "2021-01-01")
    passed = project.run("test", vars=_now(1))
    assert _test_statuses(passed) == {"sessions": "pass", "page_views": "pass",
                                      "orders_appended": "pass", "orders_daily": "pass"}

    # a failing row inside each slice: the test of that model fails
    inside = _session(spark_sql, project, in_slice=True)
    _duplicate_session(spark_sql, project, inside)
    _bad_rows(spark_sql, project, "2021-01-03")
    failed = project.run("test", vars=_now(1), expect_success=False)
    assert _test_statuses(failed) == {"sessions": "fail", "page_views": "pass",
                                      "orders_appended": "fail", "orders_daily": "fail"}

    # a run with nothing new (dbt build): every reader of the run tables skips, so they are
    # kept and the events pipeline's slice is the last run's again (its bad row still
    # fails); the append wrote nothing past its mark, so its test passes trivially; the
    # interval model skipped, so its test checks its last write (the 01-03 batch) again
    sessions_this_run = project.relation('spark_incremental_base_sessions_this_run')
    last_slice = spark_sql.table_rows(sessions_this_run)
    assert last_slice
    noop = project.run("build", vars=_now(1), expect_success=False)
    assert spark_sql.table_rows(sessions_this_run) == last_slice
    assert _test_statuses(noop) == {"sessions": "fail", "page_views": "pass",
                                    "orders_appended": "pass", "orders_daily": "fail"}


def test_a_model_without_a_slice_stops_its_test(make_project: Callable[..., DbtProject]) -> None:
    """The token on a model the package keeps no slice for is an error naming it, and so
    is the token on a tagged model without the session column its slice filters."""
    project = make_project(**BASE_VARS)
    project.write_file("macros/get_where_subquery.sql", WHERE_OPT_IN)
    project.write_model("plain/plain_table", "{{ config(materialized='table') }}\n\nselect 1 as id\n")
    project.write_model("plain/plain.yml", f"""
version: 2
models:
  - name: plain_table
    columns:
      - name: id
        data_tests:
          - not_null:
              config:
                where: "{TOKEN}"
""")
    result = project.run("build", "--select", "plain_table", expect_success=False)
    assert result.statuses["plain_table"] == "success"
    assert any("model 'plain_table' (materialized 'table') has no recorded slice" in line
               for line in result.lines), result.tail(20)

    # a tagged model's slice filters its session column: one without it (an aggregate by
    # day) stops its test naming the model and its columns, not with Spark's own error
    project.write_model("plain/daily_counts", "{{ config(materialized='table', tags=['spark_incremental']) }}"
                        "\n\nselect current_date() as day, 1 as n\n")
    project.write_model("plain/daily.yml", f"""
version: 2
models:
  - name: daily_counts
    columns:
      - name: day
        data_tests:
          - not_null:
              config:
                where: "{TOKEN}"
""")
    result = project.run("build", "--select", "daily_counts", expect_success=False)
    assert result.statuses["daily_counts"] == "success", result.statuses
    text = result.text() + "\n" + str(result.exception)
    assert ("model 'daily_counts' is tagged spark_incremental" in text
            and "has no column `session_identifier` (its columns: day, n)" in text), result.tail(20)

"""Seeded random histories of described changes: any mix of the six change types on a fact
and a dimension table, kills at each step of a write followed by a retry, runs of part of
the models followed by a run of all with the same description, repeated descriptions,
plain runs and rebuilds leave every managed_incremental model equal to a full rebuild from
the same sources (sorted rows, every column), after every step.

``test_changes.py`` walks each path once, by hand. Here the seed draws the order, so a
path meets the states that other paths leave behind: a day removed and loaded again with
the same description, a retry after a kill in another model, an add on a dimension that a
model outer-joins. Half the kills that stop a run are followed by ``dbt retry`` (the failed
model and those it skipped, with the same description), after which every model must
already equal a full rebuild. After a kill, half the time (drawn from a stream of its
own) the sources change again before the next run, as when a loader's next load lands
while a run is being repaired: that run lists both descriptions, the killed one and the
new one (the package merges a table's changes into one), over models that hold the first
applied, half-applied or not at all (since 2026-12-06 (5); it changed the seeds'
histories). Each description keeps the contract of its type
(docs/changes_and_intervals.md): a clean ADD_ROWS or REMOVE_ROWS covers only the rows it
adds or removes, an UPDATE_ROWS is scoped by a column it does not change, a dimension's
removal is described dirty (the fact outer-joins it), and every run that describes a change
is repeated, with the same description, until it succeeds for every model. One kind leaves
the clean ADD_ROWS on purpose, as loaders do: a later load into a day that holds sales,
described by the day (the models hold rows in the scope: appended, the day's earlier rows
would be there twice; taken for a retry of the day's earlier description, the new rows
would be missing).

Each seed also draws how every model's table is stored (``LAYOUTS``), which changes where
the rows lie and never what they are: unpartitioned or partitioned by its date (or an
aggregate by its product), and for a model whose mutability grows along the date a
partition strategy (``user`` by month, which adds the column ``date_month``; ``indicator``;
``distribution`` with a target partition size that picks the day or the year, as text or as
a number). The checks read each model's own columns by name, and a month level must be the
month of its row's date.

The seeds: 4 in CI (on Spark 3.5 too), 3 in ``make test`` (slow); ``SPARK_INCREMENTAL_CHANGE_SEEDS``
(comma-separated) runs others. Since the layouts are drawn and kills retried: 1-6 on Spark
4.3 (2, 4, 5 and 6 take a retry), 4 on 3.5. Since more changes follow a kill (ten steps
then, eight now: a prefix of the same history): 4, 6 and 8 on 4.3 (the package merged two
changes of one table 7 times in them), 4 on 3.5. A failure names its seed, its
layouts and the history drawn.
"""

from __future__ import annotations

import datetime as dt
import os
import random
from dataclasses import dataclass
from typing import Any, Callable

import pytest

from tests.harness.dbt import DbtProject
from tests.harness.sql import SparkSql
from tests.test_changes import (
    FCT_SALES_APPEND_JOINED, MODELS, NOW, PRODUCTS, SALES, SOURCES_YML, fresh, rows,
)
from tests.test_random_histories import History, draw_layouts, layouts_step, walk_seed

_CHOSEN = os.environ.get("SPARK_INCREMENTAL_CHANGE_SEEDS")
# seed 4 (two kills, each retried by `dbt retry`, then more changes; CI's Spark 3.5 core
# too) and seed 3 (kills between a rebuild's renames and before them, a month level by
# `user` and by `distribution`), marked slow for CI's time since 2026-12-06 (5): CI runs its paths in
# test_write_layer.py (a kill at each step of a write and at each swap point, on 4.3 and
# 3.5) and test_partition_strategies.py (the month levels of `user` and `distribution`)
SEEDS: list = ([int(s) for s in _CHOSEN.split(",") if s.strip()] if _CHOSEN
               else [pytest.param(3, marks=pytest.mark.slow), 4])
STEPS = 8  # 10 until 2026-12-06 (5): a prefix of the same history, for CI's time
FAIL_POINTS = ["after_stage", "before_overwrite", "after_write", "after_rename_old", "before_swap"]
SALES_ROWS = """

with

final as (
    select sale_id, product, amount, date
    from {{ source('shop', 'sales') }}
)

select * from final
"""
# the models beside test_changes.MODELS: model name -> (model SQL, reference SQL over the
# sources in schema {s}); the two types that only add rows besides append_only
EXTRA_MODELS = {
    "fct_sales_append_joined": (FCT_SALES_APPEND_JOINED,
                                "select s.sale_id, s.product, p.category, s.date from {s}.sales s "
                                "left join {s}.products p on s.product = p.product"),
    "fct_sales_immutable": ("{{ config(materialized='managed_incremental', mutability={'type': 'immutable'}) }}"
                            + SALES_ROWS, "select sale_id, product, amount, date from {s}.sales"),
    "fct_sales_ds": ("{{ config(materialized='managed_incremental', partition_by='date', mutability={"
                     "'type': 'ds_append_only', 'type_params': {'along': 'date', 'update_cron': '0 0 1 1 *'}}) }}"
                     + SALES_ROWS, "select sale_id, product, amount, date from {s}.sales"),
}
MODEL_SQL = {name: sql for name, (sql, _) in (MODELS | EXTRA_MODELS).items()}
# model name -> reference SQL over the sources in schema {s}
REFERENCES = {name: reference for name, (_, reference) in (MODELS | EXTRA_MODELS).items()}
NAMES = sorted(REFERENCES)
# model name -> its columns, in the reference's order (a partitioned table puts its
# partition column last, and a partition strategy may add a level column)
COLUMNS = {
    "fct_sales": "sale_id, product, category, amount, date",
    "agg_by_date": "date, sales_count, amount",
    "agg_by_product": "product, amount",
    "fct_sales_append": "sale_id, product, amount, date",
    "fct_sales_append_joined": "sale_id, product, category, date",
    "fct_sales_immutable": "sale_id, product, amount, date",
    "fct_sales_ds": "sale_id, product, amount, date",
}
# layouts that change how a model's table is stored, never what it holds: each seed draws
# one per model from its own stream (the history's draws stay those of the seed). A model
# whose mutability grows along `date` can also take a partition strategy (a level of date's
# hierarchy: day; month, which adds the column date_month; or the distribution's choice).
PLAIN_LAYOUTS = ["", "partition_by='date',"]
ALONG_LAYOUTS = PLAIN_LAYOUTS + ["partition_strategy='user', partition_by='month',",
                                 "partition_strategy='indicator',", "partition_strategy='distribution',"]
LAYOUTS = {
    "fct_sales": PLAIN_LAYOUTS,
    "agg_by_date": PLAIN_LAYOUTS,
    "agg_by_product": ["", "partition_by='product',"],
    "fct_sales_append": ALONG_LAYOUTS,
    "fct_sales_append_joined": ALONG_LAYOUTS,
    "fct_sales_immutable": PLAIN_LAYOUTS,
    "fct_sales_ds": ALONG_LAYOUTS,
}
# the distribution strategy's target partition size, as text or as a number (vars from
# env_var arrive as text): 1 picks the day, 1000 the year
TARGET_PARTITION_ROWS = [1, "1", 4, "1000"]
ALL = ("--select", "path:models/changes_test")
FIRST_DAY = dt.date(2024, 1, 1)
DAYS = 8  # sales fall on these days: few enough that a day is removed and loaded again
PRODUCTS_ALL = ["P1", "P2", "P3", "P4", "P5"]
CATEGORIES = ["A", "B", "C", "D", "E", "F"]
# (kind of change, weight)
KINDS = [("add_day", 3), ("load_again", 1), ("add_dirty", 2), ("update", 2), ("move", 1), ("remove_day", 2),
         ("remove_some", 2), ("mixed", 2), ("product_update", 1), ("product_add", 1), ("product_remove", 1),
         ("two_tables", 1), ("plain", 1), ("full_refresh", 1)]
# the kinds that change the sources after a kill, before the next run describes them too
MORE_KINDS, MORE_WEIGHTS = zip(*[(kind, weight) for kind, weight in KINDS if kind not in ("plain", "full_refresh")])


@dataclass
class Sources:
    """The source tables as this test keeps them (written to Spark whole at each step)."""

    sales: list[tuple[int, str, int, dt.date]]
    products: list[tuple[str, str]]
    next_id: int = 100
    day_described: dt.date | None = None  # a day added with a description by its date, not loaded again yet

    def days(self) -> list[dt.date]:
        return sorted({row[3] for row in self.sales})

    def sale(self, rng: random.Random, day: dt.date) -> tuple[int, str, int, dt.date]:
        self.next_id += 1
        return (self.next_id, rng.choice(PRODUCTS_ALL), rng.randrange(1, 100), day)


def _day(day: dt.date) -> str:
    return f"'{day.isoformat()}'"


def _in(values: list[Any]) -> str:
    return ", ".join(str(v) if isinstance(v, int) else _day(v) if isinstance(v, dt.date) else f"'{v}'"
                     for v in values)


def _draw(rng: random.Random, src: Sources, kind: str) -> list[dict[str, str]] | None:
    """Change the sources as `kind` says and return the description (None: a plain run or
    a rebuild, no description; [] when the kind cannot apply now: drawn again)."""
    days = src.days()
    free = [FIRST_DAY + dt.timedelta(days=i) for i in range(DAYS) if FIRST_DAY + dt.timedelta(days=i) not in days]
    if kind == "add_day":
        if not free:
            return []
        day = rng.choice(free)
        added = [src.sale(rng, day) for _ in range(rng.randint(1, 3))]
        src.sales += added
        by_date = rng.random() < 0.7
        src.day_described = day if by_date else src.day_described
        scope = f"sales.date = {_day(day)}" if by_date else f"sales.sale_id in ({_in([row[0] for row in added])})"
        return [{"table": "sales", "type": "ADD_ROWS", "scope": scope}]
    if kind == "load_again":  # a later load into a day that holds sales, described by the day
        if not days:
            return []
        # mostly the day last described by its date: the very text of that day's first load
        day = src.day_described if src.day_described in days and rng.random() < 0.8 else rng.choice(days)
        src.day_described = None
        src.sales += [src.sale(rng, day) for _ in range(rng.randint(1, 2))]
        return [{"table": "sales", "type": "ADD_ROWS", "scope": f"sales.date = {_day(day)}"}]
    if kind == "add_dirty":
        if not days:
            return []
        added = [src.sale(rng, rng.choice(days)) for _ in range(rng.randint(1, 2))]
        src.sales += added
        return [{"table": "sales", "type": "ADD_ROWS_WITH_DIRTY_CONDITION",
                 "scope": f"sales.date >= {_day(min(row[3] for row in added))}"}]
    if kind == "update":
        if not src.sales:
            return []
        chosen = rng.sample(src.sales, min(len(src.sales), rng.randint(1, 2)))
        ids = {row[0] for row in chosen}
        src.sales = [(i, p, a + 1000, d) if i in ids else (i, p, a, d) for i, p, a, d in src.sales]
        scope = (f"sales.sale_id in ({_in(sorted(ids))})" if rng.random() < 0.5
                 else f"sales.date in ({_in(sorted({row[3] for row in chosen}))})")
        return [{"table": "sales", "type": "UPDATE_ROWS", "scope": scope}]
    if kind == "move":  # a sale's date changes: the scope lists its old and new value
        if not src.sales:
            return []
        moved = rng.choice(src.sales)
        day = FIRST_DAY + dt.timedelta(days=rng.randrange(DAYS))
        src.sales = [(i, p, a, day) if i == moved[0] else (i, p, a, d) for i, p, a, d in src.sales]
        return [{"table": "sales", "type": "MIXED_CHANGES", "scope": f"sales.date in ({_in(sorted({moved[3], day}))})"}]
    if kind == "remove_day":
        if len(days) < 2:
            return []
        day = rng.choice(days)
        src.sales = [row for row in src.sales if row[3] != day]
        return [{"table": "sales", "type": "REMOVE_ROWS", "scope": f"sales.date = {_day(day)}"}]
    if kind == "remove_some":
        if len(src.sales) < 3:
            return []
        gone = rng.choice(src.sales)
        src.sales = [row for row in src.sales if row[0] != gone[0]]
        if rng.random() < 0.5:
            return [{"table": "sales", "type": "REMOVE_ROWS", "scope": f"sales.sale_id = {gone[0]}"}]
        return [{"table": "sales", "type": "REMOVE_ROWS_WITH_DIRTY_CONDITION", "scope": f"sales.date = {_day(gone[3])}"}]
    if kind == "mixed":  # an add, an update and a removal, inside a set of days
        if len(src.sales) < 3:
            return []
        updated, gone = rng.sample(src.sales, 2)
        day = FIRST_DAY + dt.timedelta(days=rng.randrange(DAYS))
        src.sales = [(i, p, a + 7, d) if i == updated[0] else (i, p, a, d) for i, p, a, d in src.sales
                     if i != gone[0]]
        src.sales.append(src.sale(rng, day))
        return [{"table": "sales", "type": "MIXED_CHANGES",
                 "scope": f"sales.date in ({_in(sorted({updated[3], gone[3], day}))})"}]
    if kind == "product_update":
        if not src.products:
            return []
        product = rng.choice(src.products)[0]
        category = rng.choice(CATEGORIES)
        src.products = [(p, category if p == product else c) for p, c in src.products]
        return [{"table": "products", "type": "UPDATE_ROWS", "scope": f"products.product = '{product}'"}]
    if kind == "product_add":
        missing = [p for p in PRODUCTS_ALL if p not in {row[0] for row in src.products}]
        if not missing:
            return []
        product = rng.choice(missing)
        src.products.append((product, rng.choice(CATEGORIES)))
        return [{"table": "products", "type": "ADD_ROWS", "scope": f"products.product = '{product}'"}]
    if kind == "product_remove":  # the fact outer-joins it: described dirty (the docs say so)
        if len(src.products) < 2:
            return []
        product = rng.choice(src.products)[0]
        src.products = [row for row in src.products if row[0] != product]
        return [{"table": "products", "type": "REMOVE_ROWS_WITH_DIRTY_CONDITION", "scope": f"products.product = '{product}'"}]
    if kind == "two_tables":
        first = _draw(rng, src, "add_day")
        second = _draw(rng, src, "product_update")
        return (first or []) + (second or []) or []
    return None


def _layouts(seed: int) -> tuple[dict[str, str], int | str]:
    """The table layout of each model and the distribution's target that `seed` draws."""
    return draw_layouts(seed, {name: LAYOUTS[name] for name in NAMES}, TARGET_PARTITION_ROWS)


def _with_layout(sql: str, layout: str) -> str:
    """The model's SQL stored as `layout` says (its own partition_by replaced)."""
    config = "materialized='managed_incremental',"
    assert config in sql
    bare = sql.replace(" partition_by='date',", "").replace(", partition_by='date')", ")")
    return bare.replace(config, f"{config} {layout}" if layout else config)


def _check(spark_sql: SparkSql, schema: str) -> None:
    for name in NAMES:
        relation = fresh(spark_sql, f"{schema}.{name}")
        got = rows(spark_sql, f"select {COLUMNS[name]} from {relation}")
        want = rows(spark_sql, REFERENCES[name].format(s=schema))
        assert got == want, f"{name} differs from a full rebuild:\n got  {got}\n want {want}"
        # a month level added by the partition strategy is the month of each row's date
        if any(column["col_name"] == "date_month" for column in spark_sql.query_dicts(f"describe {relation}")):
            wrong = rows(spark_sql, f"select date, date_month from {relation} where date_month != trunc(date, 'MM')")
            assert not wrong, f"{name}: date_month is not the month of date in {wrong}"


def _described(changes: list[dict[str, str]]) -> str:
    return " and ".join(f"{c['type']} on {c['table']} where {c['scope']}" for c in changes)


def _run_until_done(project: DbtProject, spark_sql: SparkSql, rng: random.Random, changes: list[dict[str, str]],
                    history: History, more: Callable[[], list[dict[str, str]]]) -> None:
    """Run with the description as an operator would: maybe killed at a write step, maybe
    first for part of the models, maybe once more after it succeeded; every attempt after
    the first is a retry with the same description, until one run succeeds for all. Every
    other kill that stops (by the number of steps so far: no draw, each seed's history
    stays) is first followed by `dbt retry`, which runs the failed model and the models it
    skipped: then every model must already equal a full rebuild. After a kill, `more()`
    may change the sources again before the next run: that run, and those after it,
    describe both changes (the killed description is never dropped)."""
    base = {"spark_incremental__now": NOW, "spark_incremental__changes": changes}
    then = "then a run"
    if rng.random() < 0.3:
        point = rng.choice(FAIL_POINTS)
        result = project.run("run", *ALL, vars={**base, "spark_incremental__fail_at": point}, expect_success=None)
        history.steps.append(f"then killed at {point}: {'ran through' if result.success else 'stopped'}")
        if not result.success:
            assert f"stopped at '{point}'" in result.text() + str(result.exception), result.tail(60)
            if len(history.steps) % 2 == 0:
                retried = project.run("retry", vars=base)
                # dbt names no selection under retry: this project has no events table, so
                # the run it repeats selected none of the events pipeline
                assert "dbt retry: the events table" in retried.text(), retried.tail(40)
                history.steps.append("then dbt retry")
                _check(spark_sql, project.schema)
        added = more()
        if added:
            # both descriptions, as a loader's queue holds them: the package merges the
            # changes of a table into one
            base = {**base, "spark_incremental__changes": changes + added}
            # one step, not two: every other kill is retried by the count of steps
            then = "then sources changed again and a run describing both: " + _described(changes + added)
    elif rng.random() < 0.2:
        part = sorted(rng.sample(NAMES, rng.randint(1, 3)))
        project.run("run", "--select", *part, vars=base)
        history.steps.append(f"then a run for {', '.join(part)} only")
    project.run("run", *ALL, vars=base)
    history.steps.append(then)
    if rng.random() < 0.2:
        project.run("run", *ALL, vars=base)
        history.steps.append("then a run again, same description")


def _walk(make_project: Callable[..., DbtProject], spark_sql: SparkSql, rng: random.Random,
          history: History) -> None:
    layouts, target_rows = _layouts(history.seed)
    history.steps.append(layouts_step(layouts, target_rows))
    project = make_project(spark_incremental__target_partition_rows=target_rows)
    schema = project.schema
    project.write_model("changes_test/sources.yml", SOURCES_YML)
    for name in NAMES:
        project.write_model(f"changes_test/{name}", _with_layout(MODEL_SQL[name], layouts[name]))
    src = Sources(sales=[], products=[(p, rng.choice(CATEGORIES)) for p in PRODUCTS_ALL[:3]])
    for day in rng.sample(range(DAYS), 4):
        src.sales += [src.sale(rng, FIRST_DAY + dt.timedelta(days=day)) for _ in range(rng.randint(1, 3))]

    def write_sources() -> None:
        spark_sql.create_table(f"{schema}.sales", SALES, src.sales)
        spark_sql.create_table(f"{schema}.products", PRODUCTS, src.products)

    write_sources()
    # after a kill, half the time the sources change again before the next run, as when a
    # loader's next load lands while a run is being repaired (drawn from a stream of its own)
    describer = random.Random(f"more changes after a kill {history.seed}")

    def more() -> list[dict[str, str]]:
        if describer.random() >= 0.5:
            return []
        added: list[dict[str, str]] | None = []
        while added == []:  # a kind that cannot apply now is drawn again
            added = _draw(describer, src, describer.choices(MORE_KINDS, MORE_WEIGHTS)[0])
        write_sources()
        return added or []

    project.run("run", *ALL, vars={"spark_incremental__now": NOW})
    history.steps.append(f"build: {len(src.sales)} sales on {len(src.days())} days, {len(src.products)} products")
    _check(spark_sql, schema)
    kinds, weights = zip(*KINDS)
    for _ in range(STEPS):
        changes: list[dict[str, str]] | None = []
        while changes == []:
            # a day just added by its date is often loaded again next, with the same text
            kind = ("load_again" if src.day_described is not None and rng.random() < 0.5
                    else rng.choices(kinds, weights)[0])
            changes = _draw(rng, src, kind)
        write_sources()
        if changes is None and kind == "full_refresh":
            model = rng.choice(NAMES)
            project.run("run", "--full-refresh", "--select", model, vars={"spark_incremental__now": NOW})
            history.steps.append(f"--full-refresh --select {model}")
        elif changes is None:
            project.run("run", *ALL, vars={"spark_incremental__now": NOW})
            history.steps.append("plain run")
        else:
            history.steps.append(_described(changes))
            _run_until_done(project, spark_sql, rng, changes, history, more)
        _check(spark_sql, schema)


@pytest.mark.parametrize("seed", SEEDS)
def test_a_random_history_of_changes_equals_a_full_rebuild(
    make_project: Callable[..., DbtProject], spark_sql: SparkSql, seed: int
) -> None:
    walk_seed(_walk, make_project, spark_sql, seed)

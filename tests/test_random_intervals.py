"""Seeded random histories of time-interval models: the clock moves by a few hours or
days, events arrive for the days not yet processed, some days stay empty, late events and
removals in processed days come with a restatement or a change description, a batch
fails or a write is killed (then the run is repeated), and a model is rebuilt. After every
step each model equals its query over every day whose interval is ready (sorted rows,
every column).

``test_intervals.py`` walks each path once, by hand. Here the seed draws the order, so a
path meets the states other paths leave: a gap left by a failed batch beside a
restatement, a change description on a day that a batch of three days also covers, an
empty day restated after its rows were removed. Late data keeps the contract: a day
whose interval is done changes only with a restatement or a description that covers it.
After a killed run, half the time (drawn from a stream of its own) late events land in a
day that run was to process and the next run describes them, over models that hold the
day written, half-written or not at all (since 2026-12-06 (5): it changed the seeds'
histories). Every ready day must equal the query right after that run: it applies the
change plan, then processes the intervals the killed run left (since 2026-12-06 (6);
until then such a run left them to the next, and only the described day was checked).
Half the time (a third stream) an advance's run describes its load as it lands
(`ADD_ROWS` from the first new day on), as a loader that describes every load does: the
scope covers today, whose interval is not ready, and the change must reach only done
intervals, so every new day comes whole with its batch (since 2026-12-06 (7); the
histories of the main stream are unchanged). From the same stream, a run that describes
late events in a processed day also restates a few processed days, some of the time: the
change then reaches only the done days that the run does not redo.

Each seed also draws how every model's table is stored (``LAYOUTS``): by the model's own
month column, by day, unpartitioned, or by a partition strategy (``user`` by month, which
adds the column ``ds_month``; ``indicator``, the day; ``distribution`` with a target
partition size that picks the day or the year, as text or as a number). The check reads the
model's own columns by name, and a month level must be the month of its row's day.

The seeds: 2 in CI (it describes a late day after a kill at `after_write`);
``SPARK_INCREMENTAL_INTERVAL_SEEDS`` (comma-separated) runs others: 22 and 46 describe one
after a kill at `before_overwrite`. With every ready day checked right after the
described run, 2, 7, 22 and 46 passed on Spark 4.3 in session 2026-12-06 (6), and again
in (7) with the described loads drawn (and 5 too).
A failure names its seed, its layouts and the history drawn.
"""

from __future__ import annotations

import datetime as dt
import os
import random
from dataclasses import dataclass, field
from typing import Callable

import pytest

from tests.harness.dbt import DbtProject
from tests.harness.sql import SparkSql, _sort_key
from tests.test_intervals import EVENTS, SOURCES_YML
from tests.test_random_histories import History, draw_layouts, layouts_step, walk_seed

_CHOSEN = os.environ.get("SPARK_INCREMENTAL_INTERVAL_SEEDS")
SEEDS = [int(s) for s in _CHOSEN.split(",") if s.strip()] if _CHOSEN else [2]
STEPS = 12
START = dt.date(2024, 1, 1)
# where a kill can stop an interval batch's write (spark_incremental__fail_at), and a rebuild's swap
BATCH_FAIL_POINTS = ["after_stage", "before_overwrite", "after_write"]
SWAP_FAIL_POINTS = ["before_swap", "after_rename_old"]
SELECT = ("--select", "path:models/intervals_test")


def _model(cron: str, batch_size: int, layout: str, month: bool, fails: bool) -> str:
    """A daily interval model over the events: one row per day, stored as `layout` (config
    text); `fails`: a one-day batch of the day var('fail_day') fails on purpose."""
    check = """
        and assert_true(
            ds != date'{{ var("fail_day", "1900-01-01") }}'
            or {{ spark_incremental.start_ds() }} != {{ spark_incremental.end_ds() }},
            'failing on purpose'
        ) is null""" if fails else ""
    return f"""{{{{ config(
    materialized='managed_incremental',
    time_column='ds', start='{START.isoformat()}', interval_unit='day', cron='{cron}',
    batch_size={batch_size},{" " + layout if layout else ""}
) }}}}

with

events as (
    select *
    from {{{{ source('tracking', 'events') }}}}
    where
        ds between {{{{ spark_incremental.start_ds() }}}} and {{{{ spark_incremental.end_ds() }}}}{check}
),

final as (
    select
        ds,
        count(*) as event_count,
        sum(value) as value_sum{", trunc(ds, 'MM') as month" if month else ""}
    from events
    group by ds
)

select * from final
"""


@dataclass(frozen=True)
class Model:
    cron: str
    batch_size: int
    month: bool  # the model's rows carry their month (a column `month`)
    fails: bool = False

    @property
    def hourly(self) -> bool:
        """Cron '0 * * * *': a day is ready from midnight; else '0 6 * * *': from 06:00 the next day."""
        return self.cron == "0 * * * *"

    def sql(self, layout: str) -> str:
        return _model(self.cron, self.batch_size, layout, self.month, self.fails)

    def ready_end(self, now: dt.datetime) -> dt.date:
        """The end of the last ready interval: the day of the cron's last firing at or before now."""
        return now.date() if self.hourly or now.hour >= 6 else now.date() - dt.timedelta(days=1)

    def reference(self, schema: str, now: dt.datetime) -> str:
        month = ", trunc(ds, 'MM')" if self.month else ""
        return (f"select ds, count(*), sum(value){month} from {schema}.events "
                f"where ds >= date'{START}' and ds < date'{self.ready_end(now)}' group by ds")


MODELS = {
    # one day per batch, a batch can fail on purpose
    "daily_events": Model("0 6 * * *", 1, month=True, fails=True),
    # three days per batch
    "batched_events": Model("0 6 * * *", 3, month=False),
    # hourly cron: two days per batch
    "hourly_events": Model("0 * * * *", 2, month=True),
}
# how each model's table is stored, which changes where its rows lie and never what they
# are: each seed draws one per model from its own stream (the history's draws stay those of
# the seed). By the model's own month column; by day; unpartitioned; or a level of ds's date
# hierarchy chosen by a partition strategy (`user` by month adds the column ds_month).
LAYOUTS = ["partition_by='ds',", "", "partition_strategy='indicator',",
           "partition_strategy='user', partition_by='month',", "partition_strategy='distribution',"]
MONTH_LAYOUTS = ["partition_by='month',"] + LAYOUTS
# the distribution strategy's target partition size, as text or as a number (vars from
# env_var arrive as text): 1 picks the day, 1000 the year
TARGET_PARTITION_ROWS = [1, "1", "1000", 1000]


@dataclass
class World:
    """The events as this test keeps them (written to Spark whole at each step), the clock,
    and the days every model has processed (below `done`)."""

    now: dt.datetime
    events: list[tuple[int, dt.date, int]] = field(default_factory=list)
    next_id: int = 0

    def add(self, rng: random.Random, day: dt.date, count: int) -> None:
        for _ in range(count):
            self.next_id += 1
            self.events.append((self.next_id, day, rng.randrange(1, 50)))

    def done(self) -> dt.date:
        """Every day before this is processed by every model (each step ends in a run that
        succeeds); late events and removals fall before it."""
        return min(model.ready_end(self.now) for model in MODELS.values())

    def days(self) -> list[dt.date]:
        return sorted({row[1] for row in self.events})


def _check(spark_sql: SparkSql, schema: str, now: dt.datetime, day: dt.date | None = None) -> None:
    """Each model equals its query over the ready days (only over `day`, when given)."""
    only = f" where ds = date'{day}'" if day else ""
    for name, model in MODELS.items():
        spark_sql.execute(f"refresh table {schema}.{name}")
        columns = "ds, event_count, value_sum" + (", month" if model.month else "")
        got = sorted(spark_sql.query(f"select {columns} from {schema}.{name}{only}"), key=_sort_key)
        want = sorted(spark_sql.query(f"select * from ({model.reference(schema, now)}){only}"), key=_sort_key)
        assert got == want, (f"{name} at {now} differs from its query over the ready days{only}:\n"
                             f" got  {got}\n want {want}")
        # a month level added by the partition strategy is the month of each row's day
        if any(column["col_name"] == "ds_month" for column in spark_sql.query_dicts(f"describe {schema}.{name}")):
            wrong = spark_sql.query(f"select ds, ds_month from {schema}.{name} where ds_month != trunc(ds, 'MM')")
            assert not wrong, f"{name}: ds_month is not the month of ds in {wrong}"


def _layouts(seed: int) -> tuple[dict[str, str], int | str]:
    """The table layout of each model and the distribution's target that `seed` draws."""
    choices = {name: MONTH_LAYOUTS if model.month else LAYOUTS for name, model in MODELS.items()}
    return draw_layouts(seed, choices, TARGET_PARTITION_ROWS)


def _late_after_kill(describer: random.Random, world: World, done_before: dt.date) -> tuple[dt.date, str] | None:
    """Half the time, late events in a day that every model's killed run was to process
    (from `done_before`, the days done before it, to the days done now), and how to
    describe them by the day: the models may hold the day written, half-written (an apply
    table waiting) or not at all. None otherwise, or when the run had no such day."""
    days = [done_before + dt.timedelta(days=i) for i in range((world.done() - done_before).days)]
    if not days or describer.random() >= 0.5:
        return None
    day = describer.choice(days)
    world.add(describer, day, describer.randint(1, 3))
    return day, describer.choice(["ADD_ROWS", "MIXED_CHANGES"])


def _walk(make_project: Callable[..., DbtProject], spark_sql: SparkSql, rng: random.Random,
          history: History) -> None:
    layouts, target_rows = _layouts(history.seed)
    history.steps.append(layouts_step(layouts, target_rows))
    project = make_project(spark_incremental__target_partition_rows=target_rows)
    schema = project.schema
    project.write_model("intervals_test/sources.yml", SOURCES_YML)
    for name, model in MODELS.items():
        project.write_model(f"intervals_test/{name}", model.sql(layouts[name]))
    world = World(now=dt.datetime.combine(START, dt.time()) + dt.timedelta(hours=rng.randrange(30, 80)))
    for offset in range((world.now.date() - START).days + 1):
        if rng.random() < 0.8:
            world.add(rng, START + dt.timedelta(days=offset), rng.randint(1, 4))

    def write_events() -> None:
        spark_sql.create_table(f"{schema}.events", EVENTS, world.events)

    def run(*args: str, expect_success: bool | None = True, **extra: object) -> bool:
        vars = {"spark_incremental__now": world.now.strftime("%Y-%m-%d %H:%M:%S"), **extra}
        result = project.run("run", *args, vars=vars, expect_success=expect_success)
        return result.success

    write_events()
    run(*SELECT)
    history.steps.append(f"build at {world.now}: {len(world.events)} events on {len(world.days())} days")
    _check(spark_sql, schema, world.now)
    # after a kill, half the time late events land in a day the killed run was processing
    # and the next run describes them (drawn from a stream of its own)
    describer = random.Random(f"late events after a kill {history.seed}")
    # half the time an advance's load is described as it lands, and a described late day
    # sometimes comes with a restatement (a stream of its own too)
    loader = random.Random(f"a described load {history.seed}")
    kinds = ["advance", "advance", "advance", "gap", "late_restated", "late_described", "removed_restated",
             "removed_described", "failed_batch", "killed", "full_refresh"]
    for _ in range(STEPS):
        kind = rng.choice(kinds)
        done = world.done()
        processed = [day for day in world.days() if day < done]
        if kind in ("advance", "gap", "failed_batch", "killed"):
            # new events only on days no model has processed: from today on (the hourly
            # cron's model has processed every day before today)
            before = world.now.date()
            daily_from = MODELS["daily_events"].ready_end(world.now)
            hours = {"gap": (72, 150), "failed_batch": (30, 80), "killed": (20, 60)}.get(kind, (2, 60))
            world.now += dt.timedelta(hours=rng.randrange(*hours))
            for offset in range((world.now.date() - before).days + 1):
                if rng.random() < (0.8 if kind != "gap" else 0.2):
                    world.add(rng, before + dt.timedelta(days=offset), rng.randint(1, 4))
            write_events()
            if kind == "failed_batch":
                # a day of daily_events' batches in this run (a day with no event has no batch)
                due = [day for day in world.days() if daily_from <= day < MODELS["daily_events"].ready_end(world.now)]
                fail_day = rng.choice(due) if due else daily_from
                ok = run(*SELECT, expect_success=None, fail_day=fail_day.isoformat())
                history.steps.append(f"to {world.now}, the batch of {fail_day} failing: {'ran' if ok else 'failed'}")
                run(*SELECT)
                history.steps.append("then a run")
            elif kind == "killed":
                point = rng.choice(BATCH_FAIL_POINTS)
                ok = run(*SELECT, expect_success=None, spark_incremental__fail_at=point)
                history.steps.append(f"to {world.now}, killed at {point}: {'ran through' if ok else 'stopped'}")
                late = _late_after_kill(describer, world, done)
                if late:
                    day, change_type = late
                    write_events()
                    history.steps.append(f"then late events on {day}, described {change_type}, and a run")
                    changes = [{"table": "tracking.events", "type": change_type, "scope": f"events.ds = '{day}'"}]
                    run(*SELECT, spark_incremental__changes=changes)
                    # the run applies the change plan, then processes the missing intervals
                    # the killed run left (docs/changes_and_intervals.md): every ready day
                    _check(spark_sql, schema, world.now)
                run(*SELECT)
                history.steps.append("then a run")
            elif loader.random() < 0.5:
                # a loader that describes every load: the new days, today's (not ready) among
                # them; the change reaches only done intervals, each new day comes whole with
                # its batch, and today waits for its own
                changes = [{"table": "tracking.events", "type": "ADD_ROWS", "scope": f"events.ds >= '{before}'"}]
                run(*SELECT, spark_incremental__changes=changes)
                history.steps.append(f"{kind} to {world.now}: {len(world.events)} events, "
                                     f"the load described ADD_ROWS from {before}")
            else:
                run(*SELECT)
                history.steps.append(f"{kind} to {world.now}: {len(world.events)} events")
        elif kind in ("late_restated", "late_described"):
            if done <= START:
                continue
            day = START + dt.timedelta(days=rng.randrange((done - START).days))
            world.add(rng, day, rng.randint(1, 3))
            write_events()
            if kind == "late_restated":
                end = min(done, day + dt.timedelta(days=rng.randint(1, 3)))
                restate = {"model": sorted(MODELS), "start": day.isoformat(), "end": end.isoformat()}
                run(*SELECT, spark_incremental__restate=restate)
                history.steps.append(f"late events on {day}, restated [{day}, {end})")
            else:
                change_type = rng.choice(["ADD_ROWS", "MIXED_CHANGES"])
                changes = [{"table": "tracking.events", "type": change_type, "scope": f"events.ds = '{day}'"}]
                extra: dict[str, object] = {}
                restated = ""
                if loader.random() < 0.4:
                    # the same run also restates a few processed days (the described day
                    # among them or not): the change reaches only the days not redone
                    start = START + dt.timedelta(days=loader.randrange((done - START).days))
                    end = min(done, start + dt.timedelta(days=loader.randint(1, 3)))
                    extra["spark_incremental__restate"] = {
                        "model": sorted(MODELS), "start": start.isoformat(), "end": end.isoformat()}
                    restated = f", with [{start}, {end}) restated in the same run"
                run(*SELECT, spark_incremental__changes=changes, **extra)
                history.steps.append(f"late events on {day}, described {change_type}{restated}")
        elif kind in ("removed_restated", "removed_described"):
            if not processed:
                continue
            day = rng.choice(processed)
            whole = rng.random() < 0.5
            if whole:
                world.events = [row for row in world.events if row[1] != day]
            else:
                gone = rng.choice([row for row in world.events if row[1] == day])
                world.events = [row for row in world.events if row[0] != gone[0]]
            write_events()
            if kind == "removed_restated":
                restate = {"model": sorted(MODELS), "start": day.isoformat(),
                           "end": (day + dt.timedelta(days=1)).isoformat()}
                run(*SELECT, spark_incremental__restate=restate)
                history.steps.append(f"{'all' if whole else 'one'} of {day}'s events removed, restated")
            else:
                # a clean removal covers only removed rows: the whole day; else described dirty
                change_type = "REMOVE_ROWS" if whole else "REMOVE_ROWS_WITH_DIRTY_CONDITION"
                changes = [{"table": "tracking.events", "type": change_type, "scope": f"events.ds = '{day}'"}]
                run(*SELECT, spark_incremental__changes=changes)
                history.steps.append(f"{'all' if whole else 'one'} of {day}'s events removed, described {change_type}")
        else:
            name = rng.choice(sorted(MODELS))
            if rng.random() < 0.4:
                point = rng.choice(SWAP_FAIL_POINTS)
                ok = run("--full-refresh", "--select", name, expect_success=None, spark_incremental__fail_at=point)
                history.steps.append(f"--full-refresh --select {name} killed at {point}: "
                                     f"{'ran through' if ok else 'stopped'}; then a run")
                run(*SELECT)
                # the killed rebuild's table is whole: the old one, or the new one once swapped
                _check(spark_sql, schema, world.now)
            run("--full-refresh", "--select", name)
            history.steps.append(f"--full-refresh --select {name}")
        _check(spark_sql, schema, world.now)


@pytest.mark.parametrize("seed", SEEDS)
def test_a_random_history_of_intervals_equals_the_query_over_the_ready_days(
    make_project: Callable[..., DbtProject], spark_sql: SparkSql, seed: int
) -> None:
    walk_seed(_walk, make_project, spark_sql, seed)

"""Time intervals (SQLMesh's incremental by time range) on managed_incremental: batches,
cron readiness, gap filling after a failed batch, restatement, coarser partitions."""

from __future__ import annotations

import datetime as dt
import json
import time

from tests.harness.dbt import DbtProject
from tests.harness.sql import SparkSql, _sort_key

JSON_PREFIX = "spark_incremental plan json: "

EVENTS = {"event_id": "int", "ds": "date", "value": "int"}

SOURCES_YML = """
version: 2
sources:
  - name: tracking
    schema: "{{ target.schema }}"
    tables:
      - name: events
        config:
          event_time: ds
"""

def interval_config(partition_by: str) -> str:
    """The config of a daily interval model (one day per batch) partitioned by `partition_by`.
    Its batch_size comes from env_var(), as text ('1'), as a project's may."""
    return f"""{{{{ config(
    materialized='managed_incremental',
    time_column='ds', start='2024-01-01', interval_unit='day', cron='0 6 * * *',
    batch_size=env_var('SI_TEST_BATCH_SIZE', '1'),
    partition_by='{partition_by}',
) }}}}
"""


# daily intervals, monthly partitions; fails on purpose on var('fail_day') in a one-day batch
# (not in the query that first looks for the intervals holding rows, bound to the whole range)
DAILY_EVENTS = interval_config("month") + """
with

events as (
    select *
    from {{ source('tracking', 'events') }}
    where
        ds between {{ spark_incremental.start_ds() }} and {{ spark_incremental.end_ds() }}
        and assert_true(
            ds != date'{{ var("fail_day", "1900-01-01") }}'
            or {{ spark_incremental.start_ds() }} != {{ spark_incremental.end_ds() }},
            'failing on purpose'
        ) is null
),

final as (
    select
        ds,
        count(*) as event_count,
        sum(value) as value_sum,
        trunc(ds, 'MM') as month
    from events
    group by ds
)

select * from final
"""

# the same model with dbt-spark's own microbatch, for contrast
MICROBATCH_EVENTS = """{{ config(
    materialized='incremental', incremental_strategy='microbatch', event_time='ds',
    begin='2024-01-01', batch_size='day', partition_by='month', file_format='parquet',
) }}

with

final as (
    select
        ds,
        count(*) as event_count,
        sum(value) as value_sum,
        trunc(ds, 'MM') as month
    from {{ source('tracking', 'events') }}
    group by ds
)

select * from final
"""


# weekly intervals (Monday to Monday) on a daily cron: a week is ready at the first 06:00
# on or after the Monday that ends it
WEEKLY_EVENTS = """{{ config(
    materialized='managed_incremental',
    time_column='ds', start='2024-01-01', interval_unit='week', cron='0 6 * * *',
) }}

with

final as (
    select
        ds,
        count(*) as event_count
    from {{ source('tracking', 'events') }}
    group by ds
)

select * from final
"""


def d(text: str) -> dt.date:
    return dt.date.fromisoformat(text)


def events_rows(days: dict[str, int], extra: dict[str, int] | None = None) -> list[tuple]:
    """`days`: day -> number of events (value 1 each); `extra`: day -> events of value 10."""
    out, event_id = [], 0
    for day, count in days.items():
        for _ in range(count):
            event_id += 1
            out.append((event_id, d(day), 1))
    for day, count in (extra or {}).items():
        for _ in range(count):
            event_id += 1
            out.append((event_id, d(day), 10))
    return out


def reference(spark_sql: SparkSql, schema: str, before: str) -> list[tuple]:
    sql = (f"select ds, count(*), sum(value), trunc(ds, 'MM') from {schema}.events "
           f"where ds < date'{before}' group by ds")
    return sorted(spark_sql.query(sql), key=_sort_key)


def table(spark_sql: SparkSql, relation: str) -> list[tuple]:
    spark_sql.execute(f"refresh table {relation}")  # dbt wrote it from another Spark session
    return sorted(spark_sql.query(f"select * from {relation}"), key=_sort_key)


def done_intervals(spark_sql: SparkSql, schema: str, model: str) -> list[list[str]]:
    spark_sql.execute(f"refresh table {schema}.spark_incremental_manifest_log")
    state = spark_sql.scalar(
        f"select max_by(state, written_at) from {schema}.spark_incremental_manifest_log "
        f"where model = '{model}' and record_type = 'managed'"
    )
    return json.loads(state)["intervals"]


def _preview(project: DbtProject, vars: dict) -> tuple[dict, str]:
    """The plan preview's JSON entry and table row for daily_events, with the run's vars."""
    result = project.run("run-operation", "spark_incremental.plan",
                         vars={**vars, "spark_incremental__plan_format": "json"})
    found = [line.split(JSON_PREFIX, 1)[1] for line in result.lines if JSON_PREFIX in line]
    assert len(found) == 1, result.text()
    entry = {e["model"]: e for e in json.loads(found[0])["models"]}["daily_events"]
    return entry, next(line for line in result.lines if line.startswith("daily_events "))


def _batch_ranges(lines: list[str]) -> list[str]:
    """The ranges of the interval batches the run logged, in order."""
    return [line.split(": ", 3)[3].split(" (")[0] for line in lines if "daily_events: interval batch" in line]


def _project_without_pipeline(make_project, models: dict[str, str]) -> DbtProject:
    """A project with the events pipeline off (no events table; its example models go),
    the tracking source and `models` (name -> SQL) under models/intervals_test."""
    project: DbtProject = make_project(spark_incremental__events_enabled=False)
    for path in sorted((project.project_dir / "models" / "derived").iterdir()):
        path.unlink()
    project.write_model("intervals_test/sources.yml", SOURCES_YML)
    for name, sql in models.items():
        project.write_model(f"intervals_test/{name}", sql)
    return project


def test_batches_gaps_restatement_and_coarse_partitions(make_project, spark_sql: SparkSql) -> None:
    """The plan preview before the restatement and before the gap's run shows the ranges
    the restatement redoes and the batches each run then processes. The events pipeline
    is off (no events table; its example models go): the preview shows a plain dbt run."""
    project = _project_without_pipeline(make_project, {"daily_events": DAILY_EVENTS,
                                                       "microbatch_events": MICROBATCH_EVENTS,
                                                       "weekly_events": WEEKLY_EVENTS})
    schema = project.schema
    days = {"2024-01-01": 2, "2024-01-02": 3, "2024-01-03": 4, "2024-01-04": 5, "2024-01-05": 6}
    spark_sql.create_table(f"{schema}.events", EVENTS, events_rows(days))

    # 3-day backfill, one day per batch, into one monthly partition. The cron (06:00) has
    # fired on 2024-01-04, so the intervals up to 2024-01-04 are ready.
    result = project.run(
        "run", "-s", "path:models/intervals_test",
        "--event-time-start", "2024-01-01", "--event-time-end", "2024-01-04",
        vars={"spark_incremental__now": "2024-01-04 07:00:00"},
    )
    lines = result.pkg_lines()
    assert sum("daily_events: interval batch" in line for line in lines) == 3, lines
    assert table(spark_sql, f"{schema}.daily_events") == reference(spark_sql, schema, "2024-01-04")
    assert len(table(spark_sql, f"{schema}.daily_events")) == 3
    # dbt-spark's microbatch overwrites the whole monthly partition with each daily batch:
    # only the last day survives (the trap our batches avoid)
    assert [row[0] for row in table(spark_sql, f"{schema}.microbatch_events")] == [d("2024-01-03")]
    assert done_intervals(spark_sql, schema, "daily_events") == [["2024-01-01 00:00:00", "2024-01-04 00:00:00"]]

    # 2024-01-04 is complete at 05:00 on the 5th, but the cron has not fired since: skipped.
    # The first week ends on the 8th: it is due at that day's 06:00, not at the next fire
    result = project.run("run", "-s", "daily_events", "weekly_events",
                         vars={"spark_incremental__now": "2024-01-05 05:00:00"})
    assert any("daily_events: skipped: no missing day intervals up to 2024-01-04 00:00:00" in line
               and "fires at 2024-01-05 06:00:00" in line for line in result.pkg_lines()), result.pkg_lines()
    assert ("spark_incremental: weekly_events: skipped: no missing week intervals up to 2024-01-01 00:00:00;"
            " next due when cron '0 6 * * *' fires at 2024-01-08 06:00:00") in result.pkg_lines(), result.pkg_lines()
    assert table(spark_sql, f"{schema}.weekly_events") == []

    # late data for 2024-01-01 and 2024-01-02: restate them; the batch of 2024-01-02 fails
    spark_sql.create_table(f"{schema}.events", EVENTS, events_rows(days, {"2024-01-01": 1, "2024-01-02": 1}))
    restate = {"model": "daily_events", "start": "2024-01-01", "end": "2024-01-03"}
    restate_vars = {"spark_incremental__now": "2024-01-05 07:00:00", "spark_incremental__restate": restate,
                    "fail_day": "2024-01-02"}
    entry, row = _preview(project, restate_vars)
    assert entry["plan"]["restated"] == [["2024-01-01 00:00:00", "2024-01-03 00:00:00"]], entry
    assert entry["plan"]["work"]["batches"] == [
        ["2024-01-01 00:00:00", "2024-01-02 00:00:00"], ["2024-01-02 00:00:00", "2024-01-03 00:00:00"],
        ["2024-01-04 00:00:00", "2024-01-05 00:00:00"]], entry
    assert ("intervals: time intervals (up to 3 batches): [2024-01-01 00:00:00, 2024-01-02 00:00:00) .."
            " [2024-01-04 00:00:00, 2024-01-05 00:00:00); restate redoes [2024-01-01 00:00:00, 2024-01-03 00:00:00)"
            in row), row
    result = project.run("run", "-s", "daily_events", vars=restate_vars, expect_success=False)
    assert "failing on purpose" in result.text() + str(result.exception)
    # the run took the previewed batches in order, up to the one that failed
    assert _batch_ranges(result.pkg_lines()) == ["[2024-01-01 00:00:00, 2024-01-02 00:00:00)"], result.pkg_lines()
    got = {row[0]: row[1] for row in table(spark_sql, f"{schema}.daily_events")}
    assert got == {d("2024-01-01"): 3, d("2024-01-02"): 3, d("2024-01-03"): 4}  # 01-01 redone, 01-02 not
    # the first batch is recorded; the failed day is now a gap in the middle
    assert done_intervals(spark_sql, schema, "daily_events") == [
        ["2024-01-01 00:00:00", "2024-01-02 00:00:00"],
        ["2024-01-03 00:00:00", "2024-01-04 00:00:00"],
    ]

    # the next run fills the gap and the tail: the batches the preview shows
    entry, _ = _preview(project, {"spark_incremental__now": "2024-01-05 07:00:00"})
    assert entry["plan"]["restated"] == [] and entry["action"] == "intervals", entry
    result = project.run("run", "-s", "daily_events", vars={"spark_incremental__now": "2024-01-05 07:00:00"})
    assert _batch_ranges(result.pkg_lines()) == [
        "[{}, {})".format(*batch) for batch in entry["plan"]["work"]["batches"]], (entry, result.pkg_lines())
    batches = [line for line in result.pkg_lines() if "daily_events: interval batch" in line]
    assert [b.split(": ", 2)[2].split(" (")[0] for b in batches] == [
        "interval batch 1/2: [2024-01-02 00:00:00, 2024-01-03 00:00:00)",
        "interval batch 2/2: [2024-01-04 00:00:00, 2024-01-05 00:00:00)",
    ]
    assert table(spark_sql, f"{schema}.daily_events") == reference(spark_sql, schema, "2024-01-05")
    assert done_intervals(spark_sql, schema, "daily_events") == [["2024-01-01 00:00:00", "2024-01-05 00:00:00"]]
    assert spark_sql.query(f"show partitions {schema}.daily_events") == [("month=2024-01-01",)]

    # one run describes late events from 2024-01-03 on (ADD_ROWS; the model holds rows in
    # that scope, so the plan replaces it), restates 2024-01-01, whose source also got a
    # late event, and finds 2024-01-05 ready. The scope also covers 2024-01-06, whose
    # interval is not ready and which got its first events: the change reaches only the
    # done intervals, [2024-01-02, 2024-01-05) (2024-01-01 is redone by its batch). The
    # run applies the change, then processes the restated and the missing intervals (a
    # loader that describes every load still gets them), as the preview says
    late = {"2024-01-01": 2, "2024-01-02": 1, "2024-01-03": 1, "2024-01-06": 2}
    spark_sql.create_table(f"{schema}.events", EVENTS, events_rows(days, late))
    both = {"spark_incremental__now": "2024-01-06 08:00:00",
            "spark_incremental__restate": {"model": "daily_events", "start": "2024-01-01", "end": "2024-01-02"},
            "spark_incremental__changes": [{"table": "tracking.events", "type": "ADD_ROWS", "scope": "events.ds >= '2024-01-03'"}]}
    entry, row = _preview(project, both)
    assert entry["action"] == "apply_changes" and entry["plan"]["restated"] == [
        ["2024-01-01 00:00:00", "2024-01-02 00:00:00"]], entry
    assert entry["plan"]["work"]["batches"] == [
        ["2024-01-01 00:00:00", "2024-01-02 00:00:00"], ["2024-01-05 00:00:00", "2024-01-06 00:00:00"]], entry
    assert ("apply_changes: change descriptions, then time intervals (up to 2 batches): changes in the done day"
            " intervals [2024-01-02 00:00:00, 2024-01-05 00:00:00): replace scope" in row
            and "[2024-01-01 00:00:00, 2024-01-02 00:00:00) .. [2024-01-05 00:00:00, 2024-01-06 00:00:00)" in row
            and "restate redoes [2024-01-01 00:00:00, 2024-01-02 00:00:00)" in row), row
    result = project.run("run", "-s", "daily_events", vars=both)
    assert _batch_ranges(result.pkg_lines()) == [
        "[2024-01-01 00:00:00, 2024-01-02 00:00:00)", "[2024-01-05 00:00:00, 2024-01-06 00:00:00)"], result.pkg_lines()
    done_line = _pkg_line(result.pkg_lines(), "daily_events: change descriptions in the done day intervals"
                          " [2024-01-02 00:00:00, 2024-01-05 00:00:00): replaced scope (events.ds >= '2024-01-03'):"
                          " 2 rows out, 2 in")
    assert ("; then processed 2 batches of day intervals in [2024-01-01 00:00:00, 2024-01-06 00:00:00) (restated)"
            in done_line), done_line
    # the table is the query over the ready days: 2024-01-06 waits for its interval
    assert table(spark_sql, f"{schema}.daily_events") == reference(spark_sql, schema, "2024-01-06")
    assert done_intervals(spark_sql, schema, "daily_events") == [["2024-01-01 00:00:00", "2024-01-06 00:00:00"]]
    # the next day, 2024-01-06 is ready: its batch brings its events, whole
    result = project.run("run", "-s", "daily_events", vars={"spark_incremental__now": "2024-01-07 08:00:00"})
    assert _batch_ranges(result.pkg_lines()) == ["[2024-01-06 00:00:00, 2024-01-07 00:00:00)"], result.pkg_lines()
    assert table(spark_sql, f"{schema}.daily_events") == reference(spark_sql, schema, "2024-01-07")


def _pkg_line(lines: list[str], text: str) -> str:
    found = [line for line in lines if text in line]
    assert len(found) == 1, (text, lines)
    return found[0]


def test_empty_intervals_cost_no_batch(make_project, spark_sql: SparkSql) -> None:
    """A clock far ahead of sparse data: one query finds the intervals that hold rows, only
    those get a batch, the empty ones are recorded done at once. An interval whose source
    rows were removed still holds target rows: restated, it is rewritten (emptied)."""
    project: DbtProject = make_project()
    schema = project.schema
    project.write_model("intervals_test/sources.yml", SOURCES_YML)
    project.write_model("intervals_test/daily_events", DAILY_EVENTS)
    days = {"2024-01-05": 2, "2024-03-10": 3, "2024-06-30": 4}
    spark_sql.create_table(f"{schema}.events", EVENTS, events_rows(days))

    # 200 ready days, [2024-01-01, 2024-07-19); 3 hold rows
    started = time.monotonic()
    result = project.run("run", "-s", "daily_events", vars={"spark_incremental__now": "2024-07-19 07:00:00"})
    catch_up_s = time.monotonic() - started
    lines = result.pkg_lines()
    _pkg_line(lines, "daily_events: 3 of 200 intervals hold rows; 197 empty intervals recorded done without a batch")
    batches = [line.split(": ", 2)[2].split(" (")[0] for line in lines if "daily_events: interval batch" in line]
    assert batches == [
        "interval batch 1/3: [2024-01-05 00:00:00, 2024-01-06 00:00:00)",
        "interval batch 2/3: [2024-03-10 00:00:00, 2024-03-11 00:00:00)",
        "interval batch 3/3: [2024-06-30 00:00:00, 2024-07-01 00:00:00)",
    ], lines
    assert done_intervals(spark_sql, schema, "daily_events") == [["2024-01-01 00:00:00", "2024-07-19 00:00:00"]]
    assert table(spark_sql, f"{schema}.daily_events") == reference(spark_sql, schema, "2024-07-19")
    assert len(table(spark_sql, f"{schema}.daily_events")) == 3

    # 2024-03-10's source rows are removed, and March restated: the target still holds a
    # row for that day, so its batch runs and removes it; March's other days are empty
    spark_sql.create_table(f"{schema}.events", EVENTS,
                           events_rows({day: n for day, n in days.items() if day != "2024-03-10"}))
    restate = {"model": "daily_events", "start": "2024-03-01", "end": "2024-04-01"}
    result = project.run("run", "-s", "daily_events",
                         vars={"spark_incremental__now": "2024-07-19 07:00:00", "spark_incremental__restate": restate})
    lines = result.pkg_lines()
    _pkg_line(lines, "daily_events: 1 of 31 intervals hold rows; 30 empty intervals recorded done without a batch")
    _pkg_line(lines, "daily_events: interval batch 1/1: [2024-03-10 00:00:00, 2024-03-11 00:00:00) (0 rows in, 1 out")
    assert done_intervals(spark_sql, schema, "daily_events") == [["2024-01-01 00:00:00", "2024-07-19 00:00:00"]]
    assert table(spark_sql, f"{schema}.daily_events") == reference(spark_sql, schema, "2024-07-19")
    assert [row[0] for row in table(spark_sql, f"{schema}.daily_events")] == [d("2024-01-05"), d("2024-06-30")]

    # a full rebuild gives the same table
    result = project.run("run", "-s", "daily_events", "--full-refresh",
                         vars={"spark_incremental__now": "2024-07-19 07:00:00"})
    _pkg_line(result.pkg_lines(), "daily_events: 2 of 200 intervals hold rows; 198 empty intervals recorded done")
    assert table(spark_sql, f"{schema}.daily_events") == reference(spark_sql, schema, "2024-07-19")
    print(f"\nempty intervals: catch-up of 200 daily intervals (3 with rows) in {catch_up_s:.1f} s")


BAD_MODELS = {
    "bad_time_column": ("time_column='nope', start='2024-01-01'",
                        "time_column 'nope' is not a column of the model (its columns: ds, event_count)"),
    "bad_cron": ("time_column='ds', start='2024-01-01', cron='0 0 31 2 *'",
                 "cron = '0 0 31 2 *' never fires"),
    "bad_batch_size": ("time_column='ds', start='2024-01-01', batch_size=0",
                       "batch_size = 0 (integer) is not allowed: it must be a whole number of intervals >= 1"),
    # text, as env_var() gives it: digits are a number (interval_config), other text is not
    "bad_batch_text": ("time_column='ds', start='2024-01-01', batch_size='one'",
                       "batch_size = 'one' (text) is not allowed: it must be a whole number of intervals >= 1"
                       " (an integer, or its digits as text)"),
}


def test_bad_interval_config_is_one_clear_error_each(make_project, spark_sql: SparkSql) -> None:
    project: DbtProject = make_project()
    schema = project.schema
    project.write_model("intervals_test/sources.yml", SOURCES_YML)
    for name, (settings, _) in BAD_MODELS.items():
        project.write_model(
            f"intervals_test/{name}",
            f"{{{{ config(materialized='managed_incremental', {settings}) }}}}\n"
            f"select ds, count(*) as event_count from {{{{ source('tracking', 'events') }}}} group by ds\n",
        )
    spark_sql.create_table(f"{schema}.events", EVENTS, events_rows({"2024-01-01": 1}))
    result = project.run("run", "-s", *BAD_MODELS, vars={"spark_incremental__now": "2024-01-04 07:00:00"},
                         expect_success=False)
    text = result.text()
    for name, (_, message) in BAD_MODELS.items():
        assert result.statuses[name] == "error", result.statuses
        assert f"model '{name}'" in text and message in text, f"{message!r} not in:\n{result.tail(60)}"
        assert not spark_sql.relation_exists(f"{schema}.{name}")

    # restate naming a model it cannot restate (misspelt, managed_incremental without time
    # intervals, fed by the event pipeline) stops the run in on-run-start, before any model
    project.write_model("intervals_test/plain_managed",
                        "{{ config(materialized='managed_incremental') }}\nselect 1 as id\n")
    restate = [{"model": name, "start": "2024-01-01"} for name in ("daily_metric", "plain_managed", "sessions")]
    result = project.run("run", "-s", "bad_cron", expect_success=False,
                         vars={"spark_incremental__now": "2024-01-04 07:00:00", "spark_incremental__restate": restate})
    text = result.text() + repr(result.exception)
    for message in ["model 'daily_metric' is not an enabled model of this project",
                    "model 'plain_managed' (materialized 'managed_incremental') has no time intervals",
                    "model 'sessions' is fed by the event pipeline",
                    "restate accepts the enabled managed_incremental models with time intervals (a time_column):"
                    " bad_batch_size, bad_batch_text, bad_cron, bad_time_column, and an entry without a model"]:
        assert message in text, f"{message!r} not in:\n{result.tail(40)}"
    assert "bad_cron" not in result.statuses, result.statuses
    # the plan preview says the same
    result = project.run("run-operation", "spark_incremental.plan", expect_success=False,
                         vars={"spark_incremental__restate": restate[0]})
    assert "model 'daily_metric' is not an enabled model of this project" in result.text() + repr(result.exception)

    # an interval model that is not selected: a warning, nothing restated, the run goes on
    result = project.run("run", "-s", "bad_cron", expect_success=False,
                         vars={"spark_incremental__now": "2024-01-04 07:00:00",
                               "spark_incremental__restate": {"model": "bad_batch_size", "start": "2024-01-01"}})
    assert "model 'bad_batch_size' is not selected in this run: nothing is restated for it" in result.text()
    assert result.statuses["bad_cron"] == "error", result.statuses


def by_day_query(extra_column: str) -> str:
    """Events per day, ds last but for `extra_column` (text after ds: a partition column
    other than ds goes last, where Spark keeps it)."""
    return f"""
with

final as (
    select
        count(*) as event_count,
        sum(value) as value_sum,
        ds{extra_column}
    from {{{{ source('tracking', 'events') }}}}
    where ds between {{{{ spark_incremental.start_ds() }}}} and {{{{ spark_incremental.end_ds() }}}}
    group by ds
)

select * from final
"""


# daily intervals into daily partitions (the time column is the partition column)
BY_DAY = interval_config("ds") + by_day_query("")
# the same days, partitioned by a column that is null for 2024-01-03 (Spark's default
# partition): its rows are selected by `part is null` in the touched partitions' predicate
BY_NULLABLE = interval_config("part") + by_day_query(
    ",\n        case when ds = date'2024-01-03' then null else ds end as part")


def test_a_batch_reads_only_the_partitions_it_rewrites(make_project, spark_sql: SparkSql, spark_server) -> None:
    """A batch replaces its interval's rows in a table of many partitions: Spark's metrics
    show every scan of the target in the run reading at most the partition of that day,
    and listing no file it does not read (the touched partitions are found first and
    selected with a literal predicate; a filter known only at run time would list every
    partition's files). A table with a null partition keeps it right: restating its day
    rewrites it, the other days stay. After every run both tables equal the reference."""
    from benchmarks.metrics import SqlMetrics

    project = _project_without_pipeline(make_project, {"by_day": BY_DAY, "by_nullable": BY_NULLABLE})
    schema = project.schema
    days = {f"2024-01-{day:02d}": day for day in range(1, 13)}
    spark_sql.create_table(f"{schema}.events", EVENTS, events_rows(days))

    def expected(extra: dict[str, int] | None = None) -> tuple[list[tuple], list[tuple]]:
        by_day = sorted(((n, n, d(day)) for day, n in days.items()), key=_sort_key)
        for day, n in (extra or {}).items():
            by_day = [(c + n, s + 10 * n, ds) if ds == d(day) else (c, s, ds) for c, s, ds in by_day]
        nullable = sorted(((c, s, ds, None if ds == d("2024-01-03") else ds) for c, s, ds in by_day), key=_sort_key)
        return sorted(by_day, key=_sort_key), nullable

    now = {"spark_incremental__now": "2024-01-13 07:00:00"}
    project.run("run", "-s", "path:models/intervals_test", vars=now)
    assert (table(spark_sql, f"{schema}.by_day"), table(spark_sql, f"{schema}.by_nullable")) == expected()
    assert len(spark_sql.query(f"show partitions {schema}.by_day")) == 12

    # late rows for two days; each is restated in its own run
    extra = {"2024-01-05": 2, "2024-01-03": 1}
    spark_sql.create_table(f"{schema}.events", EVENTS, events_rows(days, extra))
    probe = SqlMetrics(spark_server.ui_url)
    for day in extra:
        end = (d(day) + dt.timedelta(days=1)).isoformat()
        restate = {"model": ["by_day", "by_nullable"], "start": day, "end": end}
        mark = probe.mark()
        result = project.run("run", "-s", "path:models/intervals_test",
                             vars={**now, "spark_incremental__restate": restate})
        _pkg_line(result.pkg_lines(), f"by_day: interval batch 1/1: [{day} 00:00:00, {end} 00:00:00)")
        scans = probe.reads_since(mark, schema, "by_day").scan_details
        assert scans, f"no scan of {schema}.by_day in the metrics"
        # one row a day: the touched set's scan and the old rows' scan read that one row
        assert all(scan.partitions <= 1 for scan in scans), [(s.partitions, s.rows, s.desc[:300]) for s in scans]
        assert all(scan.listed == scan.files for scan in scans), [(s.listed, s.files, s.desc[:300]) for s in scans]
        assert sum(scan.rows for scan in scans) <= 2, [(s.partitions, s.rows, s.desc[:300]) for s in scans]
    assert (table(spark_sql, f"{schema}.by_day"), table(spark_sql, f"{schema}.by_nullable")) == expected(extra)
    assert len(spark_sql.query(f"show partitions {schema}.by_nullable")) == 12

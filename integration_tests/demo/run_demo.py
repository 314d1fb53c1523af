#!/usr/bin/env python3
"""`make demo`: the package's life in six `dbt run`s, on an embedded Spark session.

The story, told as it happens:
  1. the first run (state 1): starts at start_date and stops after backfill_limit_days;
  2. a standard run (state 4) picks up the rest;
  3. a run with nothing new: every model skips its work;
  4. late events (collected hours ago, loaded only now) are picked up with their sessions;
  5. a model fails: the manifest keeps its progress, the others move on;
  6. the next run (state 3) catches the failed model up;
then `show_state` and the row counts of the derived tables.

The demo works on its own copy of integration_tests/ under integration_tests/.spark-demo/
(wiped at the start unless --keep): the package is installed there by a link to THIS
clone, made fresh every time, so the demo never runs another copy of the package. The
warehouse and the Derby metastore live there too. Exits non-zero when a run does not
show the state it should, so CI can rely on the exit code.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import random
import re
import shutil
import sys
import time
from pathlib import Path
from typing import Any

IT_DIR = Path(__file__).resolve().parents[1]
REPO_ROOT = IT_DIR.parent
PACKAGE_NAME = "spark_incremental"
DEMO_DIR = IT_DIR / ".spark-demo"
SCHEMA = "spark_incremental_demo"

START = dt.datetime(2024, 3, 1)
DAYS = 5
BACKFILL_LIMIT_DAYS = 2
LOOKBACK_WINDOW_HOURS = 6  # the package's default, shown in the story
APP_IDS = ("web", "mobile")
PAGES = ("/", "/pricing", "/docs", "/blog", "/signup", "/docs/install", "/about")
EVENT_NAMES = ("page_view", "page_view", "page_view", "page_ping", "link_click")
EVENT_COLUMNS = (
    ("event_id", "string"),
    ("domain_sessionid", "string"),
    ("domain_userid", "string"),
    ("collector_tstamp", "timestamp"),
    ("dvce_created_tstamp", "timestamp"),
    ("dvce_sent_tstamp", "timestamp"),
    ("load_tstamp", "timestamp"),
    ("app_id", "string"),
    ("event_name", "string"),
    ("page_url", "string"),
)
DERIVED = ("sessions", "page_views")
FAILING_MODEL = "page_views"

_TS_PREFIX = re.compile(r"^\d{2}:\d{2}:\d{2}(?:\.\d+)?\s+")
_WINDOW = re.compile(r"processing data between '([^']+)' and '([^']+)'")


# ----------------------------------------------------------------------------- data
def _event(rng: random.Random, n: int, sid: str, user: str, app: str, t: dt.datetime) -> dict[str, Any]:
    created = t - dt.timedelta(seconds=rng.randint(0, 3))
    return {
        "event_id": f"ev-{n:06d}",
        "domain_sessionid": sid,
        "domain_userid": user,
        "collector_tstamp": t,
        "dvce_created_tstamp": created,
        "dvce_sent_tstamp": created + dt.timedelta(seconds=rng.randint(0, 2)),
        "load_tstamp": t + dt.timedelta(minutes=rng.randint(1, 20)),
        "app_id": app,
        "event_name": rng.choice(EVENT_NAMES),
        "page_url": "https://example.com" + rng.choice(PAGES),
    }


def generate_events(seed: int = 42) -> list[dict[str, Any]]:
    """DAYS days of sessions (deterministic for a seed), sorted by collector_tstamp."""
    rng = random.Random(seed)
    users = [f"user-{i:02d}" for i in range(12)]
    events: list[dict[str, Any]] = []
    n_session = 0
    for day in range(DAYS):
        day_start = START + dt.timedelta(days=day)
        for user in users:
            for _ in range(rng.randint(0, 2)):
                n_session += 1
                sid, app = f"sess-{n_session:04d}", rng.choice(APP_IDS)
                # sessions start before 22:00 and last minutes: each stays within its day
                t = day_start + dt.timedelta(seconds=rng.randint(0, 22 * 3600))
                for _ in range(rng.randint(2, 8)):
                    t += dt.timedelta(seconds=rng.randint(5, 300))
                    events.append(_event(rng, len(events), sid, user, app, t))
    events.sort(key=lambda e: (e["collector_tstamp"], e["event_id"]))
    return events


def on_days(events: list[dict[str, Any]], first: int, last: int) -> list[dict[str, Any]]:
    """Events collected on days first..last (0 = START's day)."""
    lo, hi = START + dt.timedelta(days=first), START + dt.timedelta(days=last + 1)
    return [e for e in events if lo <= e["collector_tstamp"] < hi]


def late_events(events: list[dict[str, Any]], loaded: list[dict[str, Any]],
                last_success: dt.datetime, seed: int = 7) -> list[dict[str, Any]]:
    """Two events for each of up to 3 sessions already loaded that were collected within
    the last LOOKBACK_WINDOW_HOURS - 1 hours before last_success, stamped between the
    session's first event and last_success: events the collector got in time but that
    reach the events table only now."""
    rng = random.Random(seed)
    since = last_success - dt.timedelta(hours=LOOKBACK_WINDOW_HOURS - 1)
    first_event: dict[str, dict[str, Any]] = {}
    for e in loaded:
        first_event.setdefault(e["domain_sessionid"], e)
    chosen = [e for e in first_event.values() if since <= e["collector_tstamp"] < last_success][:3]
    late = []
    for k, first in enumerate(chosen):
        for j in range(2):
            span = (last_success - first["collector_tstamp"]).total_seconds()
            t = first["collector_tstamp"] + dt.timedelta(seconds=int(span * (j + 1) / 3))
            late.append(_event(rng, len(events) + 2 * k + j, first["domain_sessionid"],
                               first["domain_userid"], first["app_id"], t))
    return late


# ----------------------------------------------------------------------------- spark
def _literal(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, dt.datetime):
        return f"timestamp'{value:%Y-%m-%d %H:%M:%S}'"
    return "'" + str(value).replace("\\", "\\\\").replace("'", "\\'") + "'"


def spark_session() -> Any:
    """The SparkSession dbt's `session` target started in this process."""
    from pyspark.sql import SparkSession

    return SparkSession.builder.getOrCreate()


def create_events_sql() -> list[str]:
    columns = ", ".join(f"{name} {type_}" for name, type_ in EVENT_COLUMNS)
    return [f"create schema if not exists {SCHEMA}",
            f"create table if not exists {SCHEMA}.events ({columns}) using parquet"]


def load(rows: list[dict[str, Any]]) -> int:
    """Append rows to <SCHEMA>.events; the table's row count."""
    spark = spark_session()
    values = ",\n".join(
        "(" + ", ".join(_literal(r[name]) for name, _ in EVENT_COLUMNS) + ")" for r in rows)
    spark.sql(f"insert into {SCHEMA}.events values {values}")
    return count(f"{SCHEMA}.events")


def count(table: str) -> int:
    return int(spark_session().sql(f"select count(*) from {table}").collect()[0][0])


def tables() -> list[str]:
    rows = spark_session().sql(f"show tables in {SCHEMA}").collect()
    return sorted(r["tableName"] for r in rows if not r["isTemporary"])


# ----------------------------------------------------------------------------- dbt
class Dbt:
    """dbt in this process: one embedded SparkSession serves every invocation."""

    def __init__(self, project_dir: Path, vars: dict[str, Any]) -> None:
        self.project_dir = project_dir
        self.vars = vars
        self.invocations = 0

    def __call__(self, *args: str) -> tuple[bool, list[str], dict[str, str]]:
        from dbt.cli.main import dbtRunner

        lines: list[str] = []

        def callback(event: Any) -> None:
            info = event.info
            if info.level == "debug" or not info.msg:
                return
            msg = _TS_PREFIX.sub("", info.msg)
            if info.level in ("warn", "error") and not msg.startswith("spark_incremental:"):
                msg = f"[{info.level}] {msg}"
            lines.append(msg)

        cli = [
            # dbt's own console output off: the demo prints what matters (the full log is
            # in the demo project's logs/dbt.log)
            "--log-level", "none",
            *args,
            "--project-dir", str(self.project_dir),
            "--profiles-dir", str(self.project_dir),
            "--target", "session",
            "--vars", json.dumps(self.vars),
        ]
        self.invocations += 1
        res = dbtRunner(callbacks=[callback]).invoke(cli)
        if res.exception is not None:
            lines.append(f"exception: {res.exception!r}")
        statuses = {}
        for r in getattr(res.result, "results", None) or []:
            node = getattr(r, "node", None)
            statuses[getattr(node, "name", "?")] = str(getattr(r.status, "value", r.status))
        return bool(res.success), lines, statuses


def make_project(project_dir: Path) -> None:
    """A copy of integration_tests/ with the package installed from this clone.

    `dbt deps` for `local:` makes the same link; making it here needs no dbt call, and a
    fresh link each time means a stale or foreign one can never be used.
    """
    if project_dir.exists():
        shutil.rmtree(project_dir)
    project_dir.mkdir(parents=True)
    for name in ("models", "macros"):
        shutil.copytree(IT_DIR / name, project_dir / name)
    for name in ("dbt_project.yml", "profiles.yml"):
        shutil.copy2(IT_DIR / name, project_dir / name)
    (project_dir / "packages.yml").write_text(f"packages:\n  - local: {json.dumps(str(REPO_ROOT))}\n")
    link = project_dir / "dbt_packages" / PACKAGE_NAME
    link.parent.mkdir()
    link.symlink_to(REPO_ROOT, target_is_directory=True)
    if link.resolve() != REPO_ROOT.resolve():
        raise SystemExit(f"demo: {link} does not point at {REPO_ROOT}")


def configure_env(demo_dir: Path) -> None:
    os.environ.update({
        "SPARK_INCREMENTAL_TARGET": "session",
        "SPARK_INCREMENTAL_SCHEMA": SCHEMA,
        "SPARK_INCREMENTAL_WAREHOUSE": str(demo_dir / "warehouse"),
        "SPARK_INCREMENTAL_METASTORE": str(demo_dir / "metastore_db"),
        "SPARK_INCREMENTAL_DERBY_HOME": str(demo_dir),
        "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
        "DBT_VERSION_CHECK": "false",
        "DBT_USE_COLORS": "false",
        "PYSPARK_PYTHON": sys.executable,
        "SPARK_LOCAL_IP": "127.0.0.1",
    })
    os.environ.pop("SPARK_HOME", None)  # the venv's pyspark, not a stray install


# ----------------------------------------------------------------------------- story
class Story:
    """Prints the steps and collects what did not happen as it should."""

    def __init__(self, dbt: Dbt) -> None:
        self.dbt = dbt
        self.problems: list[str] = []
        self.step = 0

    def title(self, text: str, *explain: str) -> None:
        self.step += 1
        print(f"\n== {self.step}. {text}")
        for line in explain:
            print(f"   {line}")

    def check(self, ok: bool, what: str) -> bool:
        print(f"   {'ok' if ok else 'NOT AS EXPECTED'}: {what}")
        if not ok:
            self.problems.append(f"step {self.step}: {what}")
        return ok

    def run(self, expect_success: bool = True) -> tuple[list[str], dict[str, str]]:
        t0 = time.monotonic()
        ok, lines, statuses = self.dbt("run")
        took = time.monotonic() - t0
        pkg = [line for line in lines if line.startswith("spark_incremental:")]
        for line in pkg:
            print(f"   | {line}")
        failed = {name: s for name, s in statuses.items() if s not in ("success", "skipped")}
        print(f"   dbt run: {'ok' if ok else 'failed'} in {took:.1f} s"
              + (f"; failed: {', '.join(failed)}" if failed else ""))
        if ok != expect_success:
            self.check(False, f"dbt run {'succeeds' if expect_success else 'fails'}")
            for line in lines[-25:]:
                print(f"     {line}")
        return pkg, statuses


def window_of(pkg: list[str]) -> tuple[dt.datetime, dt.datetime] | None:
    for line in pkg:
        m = _WINDOW.search(line)
        if m:
            return tuple(dt.datetime.strptime(v, "%Y-%m-%d %H:%M:%S") for v in m.groups())  # type: ignore[return-value]
    return None


def processed() -> int:
    return count(f"{SCHEMA}.spark_incremental_base_events_this_run")


def tell(story: Story) -> None:
    events = generate_events()
    has = lambda pkg, text: any(text in line for line in pkg)  # noqa: E731

    # -- 1. first run
    first_load = on_days(events, 0, 2)
    story.title(
        f"First run. {len(first_load)} events of 3 days ({START:%Y-%m-%d} .. "
        f"{START + dt.timedelta(days=2):%Y-%m-%d}) are loaded.",
        "The manifest is empty, so this is state 1: the run starts at start_date and reads",
        f"at most backfill_limit_days = {BACKFILL_LIMIT_DAYS} days, so a first run on years of history",
        "stays small. The third day waits for the next run.")
    total = load(first_load)
    print(f"   events table: {total} rows")
    pkg, _ = story.run()
    window = window_of(pkg)
    expected_end = START + dt.timedelta(days=BACKFILL_LIMIT_DAYS)
    story.check(has(pkg, "[state 1]"), "state 1 (no data in the manifest)")
    story.check(window is not None and window == (START, expected_end),
                f"window {START} .. {expected_end} (start_date + backfill_limit_days)")
    n = processed()
    story.check(n == len(on_days(events, 0, BACKFILL_LIMIT_DAYS - 1)),
                f"{n} events processed: the first {BACKFILL_LIMIT_DAYS} days, none of day 3")

    # -- 2. standard run
    story.title(
        "Standard run, nothing loaded since. The manifest holds each model's last_success",
        f"(the last event processed), so this is state 4: the window starts lookback_window_hours = "
        f"{LOOKBACK_WINDOW_HOURS}",
        "before it (to catch late loads) and reaches at most backfill_limit_days past it.")
    pkg, _ = story.run()
    story.check(has(pkg, "[state 4]") and not has(pkg, "nothing to process"), "state 4, standard run")
    n = processed()
    story.check(n > 0, f"{n} events processed: day 3, plus the sessions the lookback reaches")
    last_success = max(e["collector_tstamp"] for e in first_load)

    # -- 3. nothing new
    story.title(
        "Run again with nothing new. No event is newer than last_success: the window is empty,",
        "every model skips its work, and the run costs only dbt's own start: the run tables keep",
        "the last run's rows (every model that reads them skips), so nothing the package keeps changes.")
    sessions_before = sorted(spark_session().sql(f"select * from {SCHEMA}.sessions").collect())
    pkg, statuses = story.run()
    story.check(has(pkg, "[state 4]") and has(pkg, "nothing to process"), "state 4, nothing new")
    story.check(processed() == n, f"events_this_run kept as the last run left it ({n} events), nothing processed")
    story.check(sorted(spark_session().sql(f"select * from {SCHEMA}.sessions").collect()) == sessions_before,
                "sessions unchanged")

    # -- 4. late events
    late = late_events(events, first_load, last_success)
    day4 = on_days(events, 3, 3)
    sessions_late = sorted({e["domain_sessionid"] for e in late})
    story.check(len(late) > 0, f"{len(late)} late events made for sessions of day 3")
    story.title(
        f"Late events. Day 4 arrives ({len(day4)} events) with {len(late)} events collected on day 3, up to",
        f"{LOOKBACK_WINDOW_HOURS - 1} h before last_success, that reach the table only now (a slow loader).",
        f"The window reaches {LOOKBACK_WINDOW_HOURS} h back, so they are read, and their sessions "
        f"({', '.join(sessions_late)})",
        "are rebuilt whole from all their events.")
    load(day4 + late)
    events_now = first_load + day4 + late
    pkg, _ = story.run()
    story.check(has(pkg, "[state 4]") and not has(pkg, "nothing to process"), "state 4, standard run")
    rows = spark_session().sql(
        f"select session_identifier, event_count from {SCHEMA}.sessions "
        f"where session_identifier in ({', '.join(_literal(s) for s in sessions_late)})").collect()
    counts = {r[0]: r[1] for r in rows}
    for sid in sessions_late:
        want = sum(1 for e in events_now if e["domain_sessionid"] == sid)
        story.check(counts.get(sid) == want,
                    f"sessions.{sid}: event_count {counts.get(sid)} (all {want} of its events, late ones included)")

    # -- 5. a model fails
    day5 = on_days(events, 4, 4)
    model_file = story.dbt.project_dir / "models" / "derived" / f"{FAILING_MODEL}.sql"
    good_sql = model_file.read_text()
    story.title(
        f"A model fails. Day 5 arrives ({len(day5)} events); {FAILING_MODEL} fails this run (we break its",
        "SQL on purpose: think of a bug or a lost executor). The other models go on; the manifest",
        f"records their progress, and keeps the last_success of {FAILING_MODEL} where it was.")
    load(day5)
    model_file.write_text(good_sql.replace(
        "select * from final", "select * from final where assert_true(false) is null"))
    pkg, statuses = story.run(expect_success=False)
    story.check(statuses.get(FAILING_MODEL) == "error" and statuses.get("sessions") == "success",
                f"{FAILING_MODEL} failed, sessions succeeded")
    story.check(has(pkg, f"manifest unchanged for {FAILING_MODEL}"),
                f"the manifest kept the progress of {FAILING_MODEL}")

    # -- 6. catch-up
    story.title(
        f"Catch-up. {FAILING_MODEL} is fixed. Its last_success is behind the others', so this is state 3:",
        "the window starts at the laggard's last_success (minus the lookback) and stops at the",
        "leaders' last_success; the models already there skip, the laggard catches up.")
    model_file.write_text(good_sql)
    pkg, _ = story.run()
    story.check(has(pkg, "[state 3]"), "state 3, models out of sync")
    story.check(has(pkg, f"manifest: {FAILING_MODEL} last_success"), f"{FAILING_MODEL} recorded its progress")

    # -- show_state
    story.title("The state, as `dbt run-operation spark_incremental.show_state` prints it:")
    ok, lines, _ = story.dbt("run-operation", "spark_incremental.show_state")
    for line in lines:
        if line.startswith("spark_incremental:") or " | " in line or line.startswith("---"):
            print(f"   | {line}")
    story.check(ok and any("next run" in line for line in lines), "show_state printed the table")

    # -- row counts
    story.title(f"Row counts in {SCHEMA}:")
    names = tables()
    loaded = len(events_now) + len(day5)
    for name in ["events", *DERIVED, *(t for t in names if t not in ("events", *DERIVED))]:
        print(f"   {name:<55} {count(f'{SCHEMA}.{name}') if name in names else '-':>7}")
    story.check(count(f"{SCHEMA}.events") == loaded, f"events holds the {loaded} rows loaded")
    all_sessions = {e["domain_sessionid"] for e in events_now + day5}
    story.check(count(f"{SCHEMA}.sessions") == len(all_sessions),
                f"sessions holds one row per session loaded ({len(all_sessions)})")
    page_view_ids = {e["event_id"] for e in events_now + day5 if e["event_name"] == "page_view"}
    story.check(count(f"{SCHEMA}.page_views") == len(page_view_ids),
                f"page_views holds one row per page_view event loaded ({len(page_view_ids)})")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--keep", action="store_true",
                    help="keep the demo folder's Spark state (default: start from scratch)")
    ap.add_argument("--demo-dir", type=Path, default=DEMO_DIR)
    args = ap.parse_args(argv)
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[attr-defined]  # interleaves with Spark's stderr

    demo_dir: Path = args.demo_dir.resolve()
    if not args.keep and demo_dir.exists():
        shutil.rmtree(demo_dir)
    demo_dir.mkdir(parents=True, exist_ok=True)
    configure_env(demo_dir)
    project_dir = demo_dir / "project"
    make_project(project_dir)
    os.chdir(project_dir)
    print(f"spark_incremental demo: the package from {REPO_ROOT}, dbt project and Spark state in "
          f"{demo_dir}; start_date {START:%Y-%m-%d}, backfill_limit_days {BACKFILL_LIMIT_DAYS}, "
          f"lookback_window_hours {LOOKBACK_WINDOW_HOURS}")

    dbt = Dbt(project_dir, {
        "spark_incremental__events_schema": SCHEMA,
        "spark_incremental__start_date": START.strftime("%Y-%m-%d"),
        "spark_incremental__backfill_limit_days": BACKFILL_LIMIT_DAYS,
        "spark_incremental__lookback_window_hours": LOOKBACK_WINDOW_HOURS,
    })
    t0 = time.monotonic()
    # dbt starts the embedded Spark session (and makes the events table); the demo reuses it
    ok, lines, _ = dbt("run-operation", "demo_run_sql", "--args",
                       json.dumps({"statements": create_events_sql()}))
    if not ok:
        print("demo: dbt could not start:\n  " + "\n  ".join(lines[-30:]))
        return 1
    print(f"Spark started and the project parsed in {time.monotonic() - t0:.1f} s")
    story = Story(dbt)
    # Spark prints the failing model's stack trace (step 5) and its warnings on stderr:
    # into a file, so the story stays readable
    spark_log = demo_dir / "spark-stderr.log"
    print(f"Spark's own messages: {spark_log}")
    sys.stderr.flush()
    saved_stderr = os.dup(2)
    with open(spark_log, "ab") as fh:
        os.dup2(fh.fileno(), 2)
        try:
            tell(story)
        except Exception as exc:  # a failed query: report it as a failed demo
            story.problems.append(f"step {story.step}: {exc!r}")
        finally:
            sys.stderr.flush()
            os.dup2(saved_stderr, 2)
            os.close(saved_stderr)
    took = time.monotonic() - t0
    print(f"\n{dbt.invocations} dbt invocations in {took:.1f} s")
    if story.problems:
        print("demo FAILED:\n  " + "\n  ".join(story.problems))
        return 1
    print("demo ok: every step showed what it should")
    return 0


if __name__ == "__main__":
    sys.exit(main())

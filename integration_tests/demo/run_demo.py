#!/usr/bin/env python3
"""`make demo`: three load batches of Snowplow-like events, one `dbt run` after each.

Everything runs through dbt's `session` target (an embedded Spark in this process), with
the warehouse and the Derby metastore under integration_tests/.spark-demo/ (wiped at
the start unless --keep). The demo prints, per batch, the package's `spark_incremental:`
log lines, the rows the run processed and the time taken, and at the end the row counts.
"""

from __future__ import annotations

import argparse
import csv
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
DEMO_DIR = IT_DIR / ".spark-demo"
SCHEMA = "spark_incremental_demo"

START = dt.datetime(2024, 3, 1)
DAYS = 6
BATCHES = 3
APP_IDS = ("web", "mobile")
PAGES = ("/", "/pricing", "/docs", "/blog", "/signup", "/docs/install", "/about")
EVENT_NAMES = ("page_view", "page_view", "page_view", "page_ping", "link_click")

PACKAGE_TABLES = (
    "spark_incremental_manifest_log",
    "spark_incremental_manifest",
    "spark_incremental_base_new_event_limits",
    "spark_incremental_base_events_this_run",
)

_TS_PREFIX = re.compile(r"^\d{2}:\d{2}:\d{2}(?:\.\d+)?\s+")


# ----------------------------------------------------------------------------- data
def generate_events(seed: int = 42) -> list[dict[str, Any]]:
    """~6 days of sessions: deterministic for a given seed."""
    rng = random.Random(seed)
    users = [f"user-{i:02d}" for i in range(12)]
    events: list[dict[str, Any]] = []
    n_session = 0
    for day in range(DAYS):
        day_start = START + dt.timedelta(days=day)
        for user in users:
            for _ in range(rng.randint(0, 2)):
                n_session += 1
                sid = f"sess-{n_session:04d}"
                t = day_start + dt.timedelta(seconds=rng.randint(0, 86_399))
                app = rng.choice(APP_IDS)
                for _ in range(rng.randint(2, 8)):
                    t += dt.timedelta(seconds=rng.randint(5, 300))
                    created = t - dt.timedelta(seconds=rng.randint(0, 3))
                    sent = created + dt.timedelta(seconds=rng.randint(0, 2))
                    events.append({
                        "event_id": f"ev-{len(events):06d}",
                        "domain_sessionid": sid,
                        "domain_userid": user,
                        "collector_tstamp": t,
                        "dvce_created_tstamp": created,
                        "dvce_sent_tstamp": sent,
                        "load_tstamp": t + dt.timedelta(minutes=rng.randint(1, 20)),
                        "app_id": app,
                        "event_name": rng.choice(EVENT_NAMES),
                        "page_url": "https://example.com" + rng.choice(PAGES),
                    })
    events.sort(key=lambda e: (e["collector_tstamp"], e["event_id"]))
    return events


def split_batches(events: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """Split by collector_tstamp into BATCHES equal spans of days."""
    span = dt.timedelta(days=DAYS / BATCHES)
    batches: list[list[dict[str, Any]]] = [[] for _ in range(BATCHES)]
    for e in events:
        i = min(int((e["collector_tstamp"] - START) / span), BATCHES - 1)
        batches[i].append(e)
    return batches


def write_csv(rows: list[dict[str, Any]], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        for r in rows:
            w.writerow(
                v.strftime("%Y-%m-%d %H:%M:%S") if isinstance(v, dt.datetime) else v
                for v in r.values()
            )


# ----------------------------------------------------------------------------- dbt
class Dbt:
    """dbt in this process: one embedded SparkSession serves every invocation."""

    def __init__(self, vars: dict[str, Any]) -> None:
        self.vars = vars
        self.invocations = 0

    def __call__(self, *args: str, vars: dict[str, Any] | None = None) -> tuple[bool, list[str]]:
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
            # dbt's own console output off: the demo prints what matters (the full
            # log is in integration_tests/logs/dbt.log)
            "--log-level", "none",
            *args,
            "--project-dir", str(IT_DIR),
            "--profiles-dir", str(IT_DIR),
            "--target", "session",
            "--vars", json.dumps({**self.vars, **(vars or {})}),
        ]
        self.invocations += 1
        res = dbtRunner(callbacks=[callback]).invoke(cli)
        if res.exception is not None:
            lines.append(f"exception: {res.exception!r}")
        return bool(res.success), lines


def ensure_package_link() -> None:
    """What `dbt deps` does for `local: ../`, without dbt deps: a symlink."""
    link = IT_DIR / "dbt_packages" / "spark_incremental"
    if link.is_symlink() or link.exists():
        return
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(REPO_ROOT, target_is_directory=True)


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


def counts_from(lines: list[str]) -> dict[str, str]:
    out = {}
    for line in lines:
        if line.startswith("demo_count: "):
            name, _, n = line[len("demo_count: "):].partition("=")
            out[name] = n
    return out


def show_failure(what: str, lines: list[str], n: int = 30) -> None:
    print(f"  !! {what} failed; last {n} lines:")
    for line in "\n".join(lines).splitlines()[-n:]:
        print(f"     {line}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--keep", action="store_true",
                    help="keep integration_tests/.spark-demo/ (default: start from scratch)")
    ap.add_argument("--demo-dir", type=Path, default=DEMO_DIR)
    args = ap.parse_args(argv)
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[attr-defined]  # interleaves with Spark's stderr

    demo_dir: Path = args.demo_dir.resolve()
    if not args.keep and demo_dir.exists():
        shutil.rmtree(demo_dir)
    demo_dir.mkdir(parents=True, exist_ok=True)
    configure_env(demo_dir)
    ensure_package_link()
    os.chdir(IT_DIR)

    events = generate_events()
    batches = split_batches(events)
    print(f"spark_incremental demo: {len(events)} events over {DAYS} days "
          f"from {START:%Y-%m-%d}, {BATCHES} load batches; Spark state in {demo_dir}")

    dbt = Dbt({
        "spark_incremental__events_schema": SCHEMA,
        "spark_incremental__start_date": START.strftime("%Y-%m-%d"),
        "spark_incremental__backfill_limit_days": 2,
    })
    failures = 0
    t_all = time.monotonic()
    for i, batch in enumerate(batches, start=1):
        path = demo_dir / "batches" / f"batch_{i}.csv"
        write_csv(batch, path)
        first, last = batch[0]["collector_tstamp"], batch[-1]["collector_tstamp"]
        print(f"\n== batch {i}: {len(batch)} events, collector_tstamp {first} .. {last}")

        t0 = time.monotonic()
        ok, lines = dbt("run-operation", "demo_load_batch",
                        "--args", json.dumps({"schema": SCHEMA, "path": str(path)}))
        if not ok:
            show_failure("loading the batch", lines)
            return 1
        t_load = time.monotonic() - t0

        t0 = time.monotonic()
        ok, lines = dbt("run")
        t_run = time.monotonic() - t0
        for line in lines:
            if line.startswith(("spark_incremental:", "[warn]")):
                print(f"  {line}")
        if not ok:
            failures += 1
            show_failure("dbt run", lines)

        _, count_lines = dbt("run-operation", "demo_row_counts", "--args",
                             json.dumps({"schema": SCHEMA,
                                         "tables": ["spark_incremental_base_events_this_run"]}))
        processed = counts_from(count_lines).get("spark_incremental_base_events_this_run", "?")
        print(f"  rows processed (spark_incremental_base_events_this_run): {processed}")
        startup = " (incl. Spark start and dbt parse)" if i == 1 else ""
        print(f"  time: load {t_load:.1f} s{startup}, dbt run {t_run:.1f} s"
              f" ({'ok' if ok else 'FAILED'})")

    ok, lines = dbt("run-operation", "demo_row_counts", "--args", json.dumps({"schema": SCHEMA}))
    counts = counts_from(lines)
    print(f"\n== row counts in {SCHEMA}")
    # the source first, then the package's tables, then everything else built
    order = ["events", *PACKAGE_TABLES, *sorted(counts)]
    for name in dict.fromkeys(order):
        print(f"  {name:<55} {counts.get(name, '-'):>7}")
    if not ok:
        show_failure("counting rows", lines)
        failures += 1
    print(f"\n{dbt.invocations} dbt invocations in {time.monotonic() - t_all:.1f} s"
          f"{'' if not failures else f'; {failures} step(s) FAILED'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

"""The benchmark driver: ``python -m benchmarks.run [--days N --events-per-day N --repeats N --quick]``.

One Spark Thrift server, one events table grown day by day, every case of issue 6 on it:

* ``dbt ls`` and a one-model ``dbt run``: dbt's own floor;
* ``no-op``: the package's ``dbt run`` with no new data (its fixed cost);
* ``incremental``: the package's ``dbt run`` over 1 new day at each level of history;
* ``microbatch``: dbt-spark's microbatch sessions table, the same new day (one batch);
* ``full refresh``: the package's ``dbt run --full-refresh`` over all the history;
* ``lookback``: 1 new day whose sessions started up to 3 days before.

Each case runs ``--warmups`` times unmeasured, then ``--repeats`` times; before each run of
a package case the manifest log is put back to what it was before the first one, so every
repeat does the same work. Work time = wall time − the tool's fixed cost: the package's
no-op (median, same history) or, for microbatch, its run of one empty day batch.
Rows and files read from the events table come from the Spark driver's SQL metrics
(benchmarks/metrics.py). Writes benchmarks/results/results.md, plot.png and raw.json.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import json
import os
import platform
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from benchmarks import generate
from benchmarks.generate import EventsSpec
from benchmarks.metrics import EventLog, Reads, SqlMetrics, wait_for_ui

REPO_ROOT = Path(__file__).resolve().parents[1]
RESULTS_DIR = REPO_ROOT / "benchmarks" / "results"
PKG = "spark_incremental"
BENCH_TAG = "spark_incremental_bench"
MICROBATCH_MODEL = "bench_sessions_microbatch"
ONE_MODEL = "bench_one_model"
DEFAULT_LEVELS = (7, 30, 60)

TARGETS = {
    # name: (description, limit, 'le' | 'ge')
    "read_ratio": ("rows read by an incremental run ÷ (rows in window + rows of reprocessed sessions)", 1.1, "le"),
    "history_ratio": ("incremental work time at the largest ÷ the smallest history", 1.2, "le"),
    "refresh_ratio": ("full refresh rows read ÷ incremental rows read (largest history)", 20.0, "ge"),
    "noop_ratio": ("package no-op wall ÷ one-model dbt run wall", 1.3, "le"),
    "microbatch_ratio": ("incremental wall ÷ microbatch wall (same new day, largest history)", 1.5, "le"),
    "partition_ratio": ("rows read by an incremental run ÷ rows of the events partitions that hold the needed rows",
                        1.1, "le"),
    "noop_read_share": ("rows of events a no-op run reads ÷ one day's events (largest history)", 0.01, "le"),
}
# targets that hold only where a day's files are in time order (statistics skip files)
ORDERED_ONLY = {"read_ratio"}


class BenchError(RuntimeError):
    pass


def log(msg: str) -> None:
    print(f"[bench {time.strftime('%H:%M:%S')}] {msg}", flush=True)


# ----------------------------------------------------------------------------- results
@dataclass
class Invocation:
    args: list[str]
    wall_s: float
    reads: dict[str, Any]
    models: dict[str, float]  # unique_id -> execution_time (s) from run_results.json
    load_avg: float = 0.0  # 1-minute load average when it ended (the machine may be shared)


@dataclass
class CaseResult:
    case: str
    history_days: int
    layout: str = "ordered"
    runs: list[Invocation] = field(default_factory=list)
    warmups: list[Invocation] = field(default_factory=list)
    needed: dict[str, int] | None = None  # rows in window / rows of reprocessed sessions
    #                                       / rows of the partitions that hold them
    work_s: float | None = None

    @property
    def walls(self) -> list[float]:
        return [r.wall_s for r in self.runs]

    @property
    def wall(self) -> float:
        return statistics.median(self.walls)

    def median_read(self, key: str) -> float:
        return statistics.median(r.reads.get(key, 0) for r in self.runs)

    @property
    def rows_needed(self) -> int | None:
        if self.needed is None:
            return None
        return self.needed["window_rows"] + self.needed["session_rows_outside_window"]

    @property
    def read_ratio(self) -> float | None:
        need = self.rows_needed
        if not need:
            return None
        return self.median_read("rows") / need

    @property
    def partition_rows(self) -> int | None:
        return None if self.needed is None else self.needed.get("partition_rows")

    @property
    def partition_ratio(self) -> float | None:
        rows = self.partition_rows
        return self.median_read("rows") / rows if rows else None

    @property
    def label(self) -> str:
        return f"{self.case} @{self.history_days}d {self.layout}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "case": self.case,
            "history_days": self.history_days,
            "layout": self.layout,
            "wall_s": {"median": self.wall, "min": min(self.walls), "max": max(self.walls),
                       "all": self.walls},
            "work_s": self.work_s,
            "rows_read": self.median_read("rows"),
            "files_read": self.median_read("files"),
            "bytes_read": self.median_read("bytes"),
            "partitions_read": self.median_read("partitions"),
            "scans": self.median_read("scans"),
            "cpu_s": self.median_read("cpu_s"),
            "input_rows": self.median_read("input_rows"),
            "dropped_rows": self.median_read("dropped_rows"),
            "executions": self.median_read("executions"),
            "needed": self.needed,
            "read_ratio": self.read_ratio,
            "partition_ratio": self.partition_ratio,
            "runs": [r.__dict__ for r in self.runs],
            "warmups": [{"wall_s": r.wall_s, "args": r.args} for r in self.warmups],
        }


# ----------------------------------------------------------------------------- server
def start_server(workdir: Path, driver_memory: str, event_log: Path,
                 conf: dict[str, str] | None = None) -> Any:
    """The harness's Thrift server, with more driver memory, a longer SQL UI history and
    an event log in ``event_log`` (rows of every scan that ran: ``EventLog``). ``conf``
    (``--server-conf``) comes last on the command line, so it overrides the harness's
    settings and these (the last ``--conf`` of a key wins)."""
    from tests.harness.spark import ThriftServer

    event_log.mkdir(parents=True, exist_ok=True)

    class BenchServer(ThriftServer):
        def command(self) -> list[str]:
            cmd = list(super().command())
            if "--driver-memory" in cmd:
                cmd[cmd.index("--driver-memory") + 1] = driver_memory
            at = cmd.index("--class")
            extra = [# Derby (the embedded metastore) can fail to filter a DATE partition
                     # column; then list the table's partitions and prune in Spark instead
                     "--conf", "spark.sql.hive.metastorePartitionPruningFallbackOnException=true",
                     "--conf", "spark.sql.ui.retainedExecutions=100000",
                     "--conf", "spark.ui.retainedJobs=100000",
                     "--conf", "spark.ui.retainedStages=100000",
                     "--conf", "spark.eventLog.enabled=true",
                     # one plain file (Spark 4 rolls and compresses by default)
                     "--conf", "spark.eventLog.rolling.enabled=false",
                     "--conf", "spark.eventLog.compress=false",
                     "--conf", f"spark.eventLog.dir={event_log.as_uri()}",
                     *[arg for key, value in (conf or {}).items() for arg in ("--conf", f"{key}={value}")]]
            return cmd[:at] + extra + cmd[at:]

    return BenchServer.start(workdir)


# ----------------------------------------------------------------------------- the bench
class Bench:
    def __init__(self, args: argparse.Namespace, host: str, port: int, ui_url: str,
                 workdir: Path, event_log: Path | None = None) -> None:
        from tests.harness.dbt import DbtProject
        from tests.harness.sql import SparkSql

        self.args = args
        self.sql = SparkSql(host, port)
        self.probe: SqlMetrics = wait_for_ui(ui_url)
        self.event_log = EventLog(event_log) if event_log is not None else None
        self.prefix = args.schema_prefix
        self.spec = EventsSpec(
            schema=f"{self.prefix}_atomic",
            events_per_day=args.events_per_day,
            seed=args.seed,
            files_per_day=args.files_per_day,
            long_sessions_from_day=args.days + 1,
            layout=args.layouts[0],
        )
        self.vars = {
            "spark_incremental__events_schema": self.spec.schema,
            "spark_incremental__events_table": self.spec.table,
            "spark_incremental__events_partition_column": generate.PARTITION_COLUMN,
            "spark_incremental__start_date": self.spec.start_date.isoformat(),
            # one run catches up with any history (and a full refresh rebuilds all of it)
            "spark_incremental__backfill_limit_days": 3650,
            "spark_incremental__allow_refresh": True,
            BENCH_TAG: True,
            **args.dbt_vars,
        }
        self.project = DbtProject(workdir / "project", host, port, self.prefix,
                                  default_vars=self.vars)
        # like for like with microbatch: the package builds the same derived sessions
        # table, so the bench's copy of the project drops the other derived model
        self.project.path("models/derived/page_views.sql").unlink()
        self.package_source = "live working tree"
        if not args.live_package:
            self.package_source = self._freeze_package(workdir / "package")
        self.snapshot_schema = f"{self.prefix}_snap"
        self.results: list[CaseResult] = []
        self.microbatch_checks: list[dict[str, Any]] = []
        self.setup_runs: list[dict[str, Any]] = []
        self.loaded_to = -1  # last day index loaded into the events table
        self.lifecycle_history: dict[str, Any] | None = None  # synthetic rows inserted (--lifecycle-days)
        self.dbt_log = workdir / "dbt_invocations.log"
        self.parse_retries = 3

    # ------------------------------------------------------------------ package
    def _freeze_package(self, dest: Path) -> str:
        """Measure a copy of the package as it is now, not the working tree (others may
        edit it during a long run). Returns a description: git commit, and dirty or not."""
        shutil.rmtree(dest, ignore_errors=True)
        dest.mkdir(parents=True)
        for name in ("dbt_project.yml", "packages.yml"):
            if (REPO_ROOT / name).exists():
                shutil.copy2(REPO_ROOT / name, dest / name)
        for name in ("macros", "models"):
            shutil.copytree(REPO_ROOT / name, dest / name)
        link = self.project.path("dbt_packages") / PKG
        link.unlink()
        link.symlink_to(dest, target_is_directory=True)

        def git(*cmd: str) -> str:
            try:
                return subprocess.run(["git", "-C", str(REPO_ROOT), *cmd], capture_output=True,
                                      text=True, timeout=30).stdout.strip()
            except (OSError, subprocess.SubprocessError):
                return ""

        commit = git("rev-parse", "--short", "HEAD") or "?"
        dirty = git("status", "--porcelain", "--", "macros", "models", "integration_tests",
                    "dbt_project.yml")
        return f"commit {commit}" + (" + uncommitted changes" if dirty else "") + \
            f", copied at {dt.datetime.now(dt.timezone.utc):%H:%M} UTC"

    # ------------------------------------------------------------------ dbt
    def dbt(self, *args: str, label: str, events_reads: bool = True) -> Invocation:
        try:
            return self._dbt_once(*args, label=label, events_reads=events_reads)
        except BenchError as exc:
            # The package is a live working tree: a file caught half-written makes dbt fail
            # to parse. Try again (a few times per benchmark), never on a run-time error.
            if self.parse_retries <= 0 or not any(
                    m in str(exc) for m in ("Compilation Error", "Parsing Error")):
                raise
            self.parse_retries -= 1
            log(f"  {label}: dbt failed to parse the project, retrying in 20 s: "
                f"{str(exc).splitlines()[-1]}")
            time.sleep(20)
            return self._dbt_once(*args, label=label + " (retried)", events_reads=events_reads)

    def _dbt_once(self, *args: str, label: str, events_reads: bool = True) -> Invocation:
        mark = self.probe.mark() if events_reads else -1
        log_mark = self.event_log.mark() if self.event_log is not None and events_reads else 0
        stage_mark = self.probe.stage_mark() if events_reads else -1
        results_file = self.project.path("target/run_results.json")
        if results_file.exists():
            results_file.unlink()
        t0 = time.monotonic()
        proc = self.project.run_subprocess(*args)
        rc = proc.wait()
        wall = time.monotonic() - t0
        out = self.project.subprocess_output(proc)
        with open(self.dbt_log, "a") as fh:
            fh.write(f"\n===== {label}: dbt {' '.join(args)} ({wall:.2f} s, rc {rc})\n{out}")
        if rc != 0:
            tail = "\n".join(out.splitlines()[-40:])
            raise BenchError(f"`dbt {' '.join(args)}` ({label}) failed with code {rc}:\n{tail}")
        reads = Reads()
        if events_reads:
            reads = self.probe.reads_since(mark, self.spec.schema, self.spec.table,
                                           self.event_log, log_mark)
            cpu_s, input_rows = self.probe.stage_totals_since(stage_mark)
            reads.cpu_s = round(cpu_s, 2)
            reads.input_rows = input_rows
            reads.dropped_rows = max(0, input_rows - sum(t["rows"] for t in reads.by_table.values()))
        models: dict[str, float] = {}
        if results_file.exists():
            for r in json.loads(results_file.read_text()).get("results", []):
                models[r["unique_id"]] = round(float(r.get("execution_time") or 0.0), 3)
        return Invocation(list(args), wall, reads.to_dict(), models, round(os.getloadavg()[0], 2))

    def package_run(self, *extra: str) -> tuple[str, ...]:
        return ("run", "--exclude", f"tag:{BENCH_TAG}", *extra)

    def microbatch_run(self, first_day: int, last_day: int) -> tuple[str, ...]:
        start = self.spec.day(first_day).isoformat()
        end = self.spec.day(last_day + 1).isoformat()
        return ("run", "--select", MICROBATCH_MODEL, "--event-time-start", start,
                "--event-time-end", end)

    def setup(self, *args: str, label: str) -> None:
        inv = self.dbt(*args, label=label)
        self.setup_runs.append({"layout": self.spec.layout, "label": label, "wall_s": inv.wall_s,
                                "rows_read": inv.reads["rows"]})
        log(f"  {label}: {inv.wall_s:.1f} s, {inv.reads['rows']:,} rows read")

    # ------------------------------------------------------------------ data
    def load(self, last_day: int) -> None:
        first = self.loaded_to + 1
        if last_day < first:
            return
        t0 = time.monotonic()
        generate.load_days(self.sql, self.spec, first, last_day)
        self.loaded_to = last_day
        log(f"  loaded days {first}..{last_day} ({self.spec.day(first)} .. "
            f"{self.spec.day(last_day)}) in {time.monotonic() - t0:.1f} s")

    def inject_lifecycle_history(self, days: int) -> None:
        """Insert ``days`` days of synthetic lifecycle manifest rows before the first event
        day (one statement), so the manifest holds a long history while the events table
        holds only the bench's days. Ids: uuid-shaped hashes with '_' in place of the first
        '-', so they cannot collide with the generator's uuids; about as many sessions a day as the generator makes; users from
        the generator's pool. Then empties the session id filter, so the next run rebuilds
        it over every lifecycle row, as it would have after a real history of that length."""
        lifecycle = self._relation(f"{PKG}_base_sessions_lifecycle_manifest")
        id_filter = self._relation(f"{PKG}_base_session_id_filter")
        if not lifecycle or not id_filter or not self._exists(lifecycle):
            raise BenchError("--lifecycle-days: the lifecycle manifest does not exist after the catch-up run")
        per_day = max(1, round(self.spec.events_per_day * 2 / generate.SESSION_BLOCK))
        users = max(1, self.spec.events_per_day // 4)
        seed = self.spec.seed
        first = self.spec.start_date - dt.timedelta(days=days)
        h = f"xxhash64({seed}, 'synthetic', id)"
        self.sql.reconnect()
        columns = [str(r[0]) for r in self.sql.query(f"show columns in {lifecycle}")]
        expected = ["session_identifier", "user_identifier", "start_tstamp", "end_tstamp", "user_tstamp", "start_date"]
        if columns != expected:
            raise BenchError(f"--lifecycle-days: lifecycle columns {columns}, expected {expected}")
        t0 = time.monotonic()
        self.sql.execute(f"""
            insert into {lifecycle}
            select
                -- uuid-shaped (so Parquet min/max statistics of a file of them span the hex
                -- range, as real ids do) with '_' for the first '-': no generated id has it
                overlay({generate._uuid(h)} placing '_' from 9 for 1) as session_identifier,
                {generate._uuid(f"{seed}, 'user', pmod(xxhash64({h}, 'u'), {users})")} as user_identifier,
                start_tstamp,
                start_tstamp + make_interval(0, 0, 0, 0, 0, cast(1 + pmod(xxhash64({h}, 'len'), 30) as int), 0)
                    as end_tstamp,
                start_tstamp as user_tstamp,
                date_format(start_tstamp, 'yyyy-MM-dd') as start_date
            from (
                select
                    id,
                    timestamp_seconds(
                        unix_seconds(timestamp(date_add(date'{first.isoformat()}', cast(id div {per_day} as int))))
                        + pmod({h}, 86400 - 3600)
                    ) as start_tstamp
                from range(0, {days * per_day})
            ) as sessions
        """)
        self.sql.execute(f"truncate table {id_filter}")
        self.lifecycle_history = {
            "days": days, "sessions_per_day": per_day, "rows": days * per_day,
            "from": first.isoformat(), "to": (self.spec.start_date - dt.timedelta(days=1)).isoformat(),
            "seconds": round(time.monotonic() - t0, 1),
        }
        log(f"  inserted {days * per_day:,} synthetic lifecycle rows ({days} days x {per_day} sessions, "
            f"{first} .. {self.lifecycle_history['to']}) into {lifecycle} and emptied {id_filter} "
            f"in {self.lifecycle_history['seconds']} s")

    # ------------------------------------------------------------------ state
    def _relation(self, model: str) -> str | None:
        manifest = self.project.path("target/manifest.json")
        data = json.loads(manifest.read_text())
        for node in data["nodes"].values():
            if node.get("resource_type") == "model" and node.get("name") == model:
                return f"{node['schema']}.{node.get('alias') or node['name']}"
        return None

    def _exists(self, relation: str) -> bool:
        return self.sql.relation_exists(relation)

    RUN_TABLES = ("base_events_in_window", "base_sessions_this_run", "base_events_this_run")

    def snapshot_state(self, run_tables: bool = False) -> None:
        """Copy the manifest log (the package's whole state: last_success and the managed
        models' state) so that each repeat can start from it; with run_tables, also the
        three run tables with their spark_incremental.* table properties, so that each
        repeat of a no-op follows the run before it (a run with nothing new may keep them,
        or build them empty and keep them in the next one)."""
        log_rel = self._relation(f"{PKG}_manifest_log")
        self.sql.reconnect()  # a new session: no stale file listing of tables dbt rewrote
        self.sql.execute(f"create schema if not exists {self.snapshot_schema}")
        self.sql.execute(f"drop table if exists {self.snapshot_schema}.manifest_log")
        self.sql.execute(f"create table {self.snapshot_schema}.manifest_log using parquet "
                         f"as select * from {log_rel}")
        self.snapshot_tables: dict[str, dict[str, str]] = {}
        for name in self.RUN_TABLES if run_tables else ():
            rel = self._relation(f"{PKG}_{name}")
            if not (rel and self._exists(rel)):
                continue
            props = {str(k): str(v) for k, v in self.sql.query(f"show tblproperties {rel}")
                     if str(k).startswith("spark_incremental.")}
            self.sql.execute(f"drop table if exists {self.snapshot_schema}.{name}")
            self.sql.execute(f"create table {self.snapshot_schema}.{name} using parquet as select * from {rel}")
            self.snapshot_tables[rel] = {"copy": f"{self.snapshot_schema}.{name}", **props}

    def restore_state(self) -> None:
        log_rel = self._relation(f"{PKG}_manifest_log")
        self.sql.reconnect()
        # truncate + insert: the log overwrites partitions dynamically (its own table
        # option), so an insert overwrite would keep the partitions written since
        self.sql.execute(f"truncate table {log_rel}")
        self.sql.execute(f"insert into table {log_rel} "
                         f"select * from {self.snapshot_schema}.manifest_log")
        for rel, saved in getattr(self, "snapshot_tables", {}).items():
            props = ", ".join(f"'{k}' = '{v}'" for k, v in saved.items() if k != "copy")
            self.sql.execute(f"drop table if exists {rel}")
            self.sql.execute(f"create table {rel} using parquet"
                             + (f" tblproperties ({props})" if props else "")
                             + f" as select * from {saved['copy']}")

    # ------------------------------------------------------------------ measuring
    def measure(self, case: str, history: int, args: tuple[str, ...],
                before: Callable[[], None] | None = None, warmups: int | None = None,
                events_reads: bool = True) -> CaseResult:
        result = CaseResult(case, history, self.spec.layout)
        warmups = self.args.warmups if warmups is None else warmups
        for i in range(warmups + self.args.repeats):
            if before is not None:
                before()
            label = f"{case} @{history}d #{i + 1}{' (warm-up)' if i < warmups else ''}"
            inv = self.dbt(*args, label=label, events_reads=events_reads)
            (result.warmups if i < warmups else result.runs).append(inv)
            log(f"  {label}: {inv.wall_s:.2f} s, {inv.reads['rows']:,} rows / "
                f"{inv.reads['files']} files read in {inv.reads['scans']} scans")
        self.results.append(result)
        return result

    def needed_rows(self) -> dict[str, int]:
        """Rows the last package run had to read: the events in its window, plus the events
        of the sessions it reprocessed that lie outside the window. Counted after the
        measured runs, outside their metrics."""
        limits_rel = self._relation(f"{PKG}_base_new_event_limits")
        sessions_rel = self._relation(f"{PKG}_base_sessions_this_run")
        ts = "collector_tstamp"
        sid = "domain_sessionid"
        events = self.spec.relation
        self.sql.reconnect()
        # a run with nothing new needs no row; it may keep the run tables as the last run
        # with new events left them, so its sessions are not the ones it processed
        if str(self.sql.query(f"select nothing_new from {limits_rel}")[0][0]).lower() == "true":
            return {"window_rows": 0, "session_rows_outside_window": 0, "partition_rows": 0}
        if sessions_rel and self._exists(sessions_rel):
            sessions = (f"left join {sessions_rel} s on e.{sid} = s.session_identifier "
                        f"and e.{ts} >= s.start_tstamp and e.{ts} <= s.end_tstamp")
            in_session = "s.session_identifier is not null"
        else:
            sessions, in_session = "", "false"
        row = self.sql.query(f"""
            with lim as (select lower_limit, upper_limit from {limits_rel})
            select
                count_if(e.{ts} between lim.lower_limit and lim.upper_limit) as window_rows,
                count_if(not (e.{ts} between lim.lower_limit and lim.upper_limit)
                         and {in_session}) as session_rows_outside_window
            from {events} e
            cross join lim
            {sessions}
            where e.event_date >= date_sub(to_date(lim.lower_limit), 4)
        """)[0]
        # the rows of the day partitions that hold at least one needed row: what a reader
        # that prunes partitions but cannot skip files inside one must read
        parts = self.sql.query(f"""
            with lim as (select lower_limit, upper_limit from {limits_rel}),
            per_day as (
                select
                    e.event_date,
                    count(*) as day_rows,
                    count_if(e.{ts} between lim.lower_limit and lim.upper_limit
                             or {in_session}) as needed_rows
                from {events} e
                cross join lim
                {sessions}
                where e.event_date >= date_sub(to_date(lim.lower_limit), 4)
                group by e.event_date
            )
            select coalesce(sum(day_rows), 0) from per_day where needed_rows > 0
        """)[0]
        return {"window_rows": int(row[0] or 0), "session_rows_outside_window": int(row[1] or 0),
                "partition_rows": int(parts[0] or 0)}

    def check_microbatch(self, day: int) -> None:
        """Like for like: the microbatch table's rows of the new day against the package's
        sessions table (after its incremental run over the same day). Equal rows, every
        column; the microbatch rows of sessions that began the day before (it cannot
        sessionise across midnight) are counted apart; anything else is a difference."""
        pkg, mb = self._relation("sessions"), self._relation(MICROBATCH_MODEL)
        if not pkg or not mb:
            return
        cols = ("session_identifier", "user_identifier", "app_id", "start_tstamp", "end_tstamp",
                "duration_seconds", "event_count", "page_view_count", "distinct_page_count",
                "landing_page_url", "exit_page_url")
        # a: the package's rows, b: microbatch's
        on_pm = " and ".join(f"a.{c} <=> b.{c}" for c in cols)
        d = self.spec.day(day).isoformat()
        self.sql.reconnect()
        row = self.sql.query(f"""
            with p as (select * from {pkg} where start_date = '{d}'),
            m as (select * from {mb} where start_date = date'{d}'),
            earlier as (select session_identifier from {pkg} where start_date < '{d}'),
            m_differing as (select * from m as b left anti join p as a on {on_pm})
            select
                (select count(*) from p),
                (select count(*) from m),
                (select count(*) from m as b left semi join p as a on {on_pm}),
                (select count(*) from m_differing as x left semi join earlier as e
                    on x.session_identifier = e.session_identifier),
                (select count(*) from m_differing as x left anti join earlier as e
                    on x.session_identifier = e.session_identifier),
                (select count(*) from p as a left anti join m as b on {on_pm})
        """)[0]
        names = ("package_rows", "microbatch_rows", "equal_rows", "microbatch_rows_of_earlier_sessions",
                 "microbatch_rows_differing", "package_rows_differing")
        check = {"layout": self.spec.layout, "day": d, **{n: int(v or 0) for n, v in zip(names, row)}}
        check["equal"] = check["microbatch_rows_differing"] == 0 and check["package_rows_differing"] == 0
        self.microbatch_checks.append(check)
        log(f"  microbatch vs package sessions of {d}: {check}")

    # ------------------------------------------------------------------ scenario
    def run(self) -> None:
        """Every case on each layout of the events table in turn, each from scratch."""
        for layout in self.args.layouts:
            self.spec = dataclasses.replace(self.spec, layout=layout)
            self.loaded_to = -1
            self._run_layout()

    def _run_layout(self) -> None:
        a = self.args
        spec = self.spec
        log(f"events table {spec.relation} ({spec.layout} files): {a.days} days x "
            f"{a.events_per_day:,} events/day; levels {a.levels}; {a.warmups} warm-up + "
            f"{a.repeats} repeats")
        self.sql.execute(f"drop schema if exists {self.prefix} cascade")
        self.sql.execute(f"drop schema if exists {self.snapshot_schema} cascade")
        generate.create_table(self.sql, spec, replace=True)
        microbatch_to = -1
        noop: CaseResult | None = None
        done_to = -1  # the last day the package's runs have processed
        for level in a.levels:
            log(f"history {level} days")
            # the measured run follows a daily run, as in production: the bulk catch-up
            # first (its own one-time costs: the session id filter reads every lifecycle
            # row it has not seen), then one day, then the measured new day
            # (at consecutive levels the previous level's measured run was the daily run)
            # --lifecycle-days: injected after the first level's catch-up run (its daily
            # run then rebuilds the filter), or after its daily run when there is no catch-up
            inject = bool(a.lifecycle_days) and level == a.levels[0]
            if level - 2 > done_to:
                self.load(level - 2)
                self.setup(*self.package_run(), label=f"catch-up to day {level - 2}")
                if inject:
                    self.inject_lifecycle_history(a.lifecycle_days)
                    inject = False
            if level - 1 > done_to:
                self.load(level - 1)
                self.setup(*self.package_run(), label=f"daily run of day {level - 1}")
            if inject:
                self.inject_lifecycle_history(a.lifecycle_days)
            if "microbatch" in a.cases:
                self.setup(*self.microbatch_run(microbatch_to + 1, level - 1),
                           label=f"microbatch catch-up to day {level - 1}")
                microbatch_to = level - 1
            self.load(level)  # the new day
            if "incremental" in a.cases:
                self.snapshot_state()
                inc = self.measure("incremental", level, self.package_run(), before=self.restore_state)
                inc.needed = self.needed_rows()
            if "no-op" in a.cases:
                self.snapshot_state(run_tables=True)
                noop = self.measure("no-op", level, self.package_run(), before=self.restore_state)
                noop.needed = self.needed_rows()
            if "microbatch" in a.cases:
                self.measure("microbatch", level, self.microbatch_run(level, level))
                if "incremental" in a.cases:
                    self.check_microbatch(level)
                microbatch_to = level
            if "full-refresh" in a.cases:
                # the heaviest case, and warm already (the runs above used the same models)
                self.measure("full refresh", level, self.package_run("--full-refresh"), warmups=0)
            done_to = level
        top = a.levels[-1]
        if "floor" in a.cases:
            self.measure("dbt ls", top, ("ls",), events_reads=False)
            self.measure("one-model dbt run", top, ("run", "--select", ONE_MODEL))
        if "microbatch" in a.cases:
            # microbatch's own fixed cost: one batch of a day with no events
            empty_day = self.loaded_to + 1000
            self.measure("microbatch no-op", top, self.microbatch_run(empty_day, empty_day))
        if "lookback" in a.cases:
            new_day = self.loaded_to + 4
            log(f"lookback: long sessions from day {spec.long_sessions_from_day}, new day {new_day}")
            self.load(new_day - 1)
            self.setup(*self.package_run(), label=f"catch-up to day {new_day - 1}")
            self.load(new_day)
            self.snapshot_state()
            lb = self.measure("lookback", new_day, self.package_run(), before=self.restore_state)
            lb.needed = self.needed_rows()

    def _work_times(self) -> None:
        """Work = wall − the fixed cost of the same tool: the package's no-op at the same
        history for package cases, microbatch's empty batch for microbatch."""
        for layout in self.args.layouts:
            self._work_times_of([r for r in self.results if r.layout == layout])

    @staticmethod
    def _work_times_of(results: list[CaseResult]) -> None:
        noops = {r.history_days: r.wall for r in results if r.case == "no-op"}
        mb_noop = [r.wall for r in results if r.case == "microbatch no-op"]
        for r in results:
            if r.case == "microbatch":
                r.work_s = r.wall - mb_noop[-1] if mb_noop else None
            elif r.case in ("incremental", "full refresh", "lookback") and noops:
                # lookback: the no-op of the largest level
                base = noops.get(r.history_days, noops[max(noops)])
                r.work_s = r.wall - base


# ----------------------------------------------------------------------------- report
def machine_info(spark_version: str) -> dict[str, Any]:
    mem_gb = None
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                mem_gb = round(int(line.split()[1]) / 1024 / 1024, 1)
    except OSError:
        pass
    cpu = platform.processor() or ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    from importlib.metadata import version

    def v(pkg: str) -> str:
        try:
            return version(pkg)
        except Exception:
            return "?"

    return {
        "cores": os.cpu_count(),
        "memory_gb": mem_gb,
        "cpu": cpu,
        "spark": spark_version,
        "python": platform.python_version(),
        "dbt_core": v("dbt-core"),
        "dbt_spark": v("dbt-spark"),
        "os": platform.platform(),
        "load_avg_at_end": os.getloadavg(),
    }


def compute_targets(results: list[CaseResult], events_per_day: int = 0) -> dict[str, dict[str, Any]]:
    """The targets on each layout of the events table (keys 'name' for the first layout,
    'name[layout]' for the others)."""
    layouts = list(dict.fromkeys(r.layout for r in results))
    out: dict[str, dict[str, Any]] = {}
    for i, layout in enumerate(layouts):
        part = _targets_of([r for r in results if r.layout == layout], events_per_day, layout)
        for name, t in part.items():
            t["layout"] = layout
            out[name if i == 0 else f"{name}[{layout}]"] = t
    return out


def _targets_of(results: list[CaseResult], events_per_day: int, layout: str) -> dict[str, dict[str, Any]]:
    def find(case: str, level: int | None = None) -> CaseResult | None:
        rows = [r for r in results if r.case == case and (level is None or r.history_days == level)]
        return rows[-1] if rows else None

    levels = sorted({r.history_days for r in results if r.case == "incremental"})
    out: dict[str, dict[str, Any]] = {}

    def put(name: str, value: float | None, detail: str, at_most: float | None = None) -> None:
        """at_most: the value if every row of the scans adaptive execution cut from the
        final plans was read from the events table (an upper bound)."""
        desc, limit, how = TARGETS[name]
        if name in ORDERED_ONLY and layout != "ordered":
            limit = None  # reported, not judged: statistics cannot skip unordered files
        ok = None if value is None or limit is None else (
            value <= limit if how == "le" else value >= limit)
        undecided = bool(ok) and at_most is not None and how == "le" and at_most > limit
        out[name] = {"target": desc, "value": value, "limit": limit, "how": how,
                     "pass": None if undecided else ok, "undecided": undecided, "detail": detail}

    def cut(r: CaseResult, denominator: int | None) -> tuple[str, float | None]:
        """The rows the stages read that no counted scan accounts for (without the event
        log: the scans adaptive execution ran, then cut from the final plan)."""
        dropped = r.median_read("dropped_rows")
        if not dropped or not denominator:
            return "", None
        hi = (r.median_read("rows") + dropped) / denominator
        return (f"; + {dropped:,.0f} rows the stages read that no counted scan accounts for "
                f"(any table, not in the per-table figures): ≤ {hi:.2f}"), hi

    if levels:
        top, low = levels[-1], levels[0]
        inc_top, inc_low = find("incremental", top), find("incremental", low)
        note, hi = cut(inc_top, inc_top.rows_needed) if inc_top else ("", None)
        put("read_ratio", inc_top.read_ratio if inc_top else None,
            f"incremental @{top}d: {inc_top.median_read('rows'):,.0f} rows read / "
            f"{inc_top.rows_needed or 0:,} needed{note}" if inc_top else "", hi)
        note, hi = cut(inc_top, inc_top.partition_rows) if inc_top else ("", None)
        put("partition_ratio", inc_top.partition_ratio if inc_top else None,
            f"incremental @{top}d: {inc_top.median_read('rows'):,.0f} rows read / "
            f"{inc_top.partition_rows or 0:,} rows in the partitions of the needed rows{note}"
            if inc_top else "", hi)
        if inc_top and inc_low and inc_top.work_s is not None and inc_low.work_s is not None \
                and top != low:
            value = inc_top.work_s / inc_low.work_s if inc_low.work_s > 0 else None
            cpu_low = inc_low.median_read("cpu_s")
            cpu = (f"; Spark CPU {inc_top.median_read('cpu_s'):.1f} s / {cpu_low:.1f} s = "
                   f"{inc_top.median_read('cpu_s') / cpu_low:.2f}") if cpu_low else ""
            put("history_ratio", value,
                f"work {inc_top.work_s:.2f} s @{top}d / {inc_low.work_s:.2f} s @{low}d{cpu}")
        else:
            put("history_ratio", None, "needs two levels of history and the no-op case")
        fr = find("full refresh", top)
        if fr and inc_top and inc_top.median_read("rows"):
            put("refresh_ratio", fr.median_read("rows") / inc_top.median_read("rows"),
                f"{fr.median_read('rows'):,.0f} / {inc_top.median_read('rows'):,.0f} rows @{top}d")
        else:
            put("refresh_ratio", None, "needs the full refresh case")
        mb = find("microbatch", top)
        if mb and inc_top:
            put("microbatch_ratio", inc_top.wall / mb.wall,
                f"{inc_top.wall:.2f} s / {mb.wall:.2f} s @{top}d")
        else:
            put("microbatch_ratio", None, "needs the microbatch case")
    noop = find("no-op", levels[-1]) if levels else find("no-op")
    if noop and events_per_day:
        put("noop_read_share", noop.median_read("rows") / events_per_day,
            f"{noop.median_read('rows'):,.0f} rows / {events_per_day:,} a day @{noop.history_days}d")
    else:
        put("noop_read_share", None, "needs the no-op case")
    one = find("one-model dbt run")
    if noop and one:
        put("noop_ratio", noop.wall / one.wall, f"{noop.wall:.2f} s / {one.wall:.2f} s")
    else:
        put("noop_ratio", None, "needs the no-op and one-model cases")
    return out


def _fmt_s(x: float | None) -> str:
    return "–" if x is None else f"{x:.2f}"


def _fmt_n(x: float | None) -> str:
    return "–" if x is None else f"{x:,.0f}"


def results_table(results: list[CaseResult]) -> str:
    head = ("| layout | case | history (days) | wall median s | min | max | work s | Spark CPU s | load "
            "| rows read | files read | partitions read | scans | rows needed | read ÷ needed "
            "| partition rows | read ÷ partition rows | rows not counted (all tables) |\n"
            "| --- | --- |" + " ---: |" * 16)
    lines = [head]
    for r in results:
        lines.append(
            f"| {r.layout} | {r.case} | {r.history_days} | {_fmt_s(r.wall)} | {_fmt_s(min(r.walls))} | "
            f"{_fmt_s(max(r.walls))} | {_fmt_s(r.work_s)} | {_fmt_s(r.median_read('cpu_s'))} | "
            f"{statistics.median(x.load_avg for x in r.runs):.1f} | {_fmt_n(r.median_read('rows'))} | "
            f"{_fmt_n(r.median_read('files'))} | {_fmt_n(r.median_read('partitions'))} | "
            f"{_fmt_n(r.median_read('scans'))} | {_fmt_n(r.rows_needed)} | "
            f"{'–' if r.read_ratio is None else f'{r.read_ratio:.2f}'} | {_fmt_n(r.partition_rows)} | "
            f"{'–' if r.partition_ratio is None else f'{r.partition_ratio:.2f}'} | "
            f"{_fmt_n(r.median_read('dropped_rows'))} |")
    return "\n".join(lines)


def targets_table(targets: dict[str, dict[str, Any]]) -> str:
    lines = ["| layout | target | value | limit | result | figures |",
             "| --- | --- | ---: | ---: | --- | --- |"]
    for t in targets.values():
        value = "–" if t["value"] is None else f"{t['value']:.3g}" if t["value"] < 0.1 else f"{t['value']:.2f}"
        if t["limit"] is None:
            verdict = "reported" if t["value"] is not None else "not measured"
            limit = "–"
        else:
            verdict = ("not decided" if t.get("undecided")
                       else {True: "pass", False: "**miss**", None: "not measured"}[t["pass"]])
            limit = f"{'≤' if t['how'] == 'le' else '≥'} {t['limit']:g}"
        lines.append(f"| {t.get('layout', '')} | {t['target']} | {value} | {limit} | {verdict} | "
                     f"{t['detail']} |")
    return "\n".join(lines)


def model_timings(results: list[CaseResult]) -> str:
    """Median dbt execution time per node, for the package cases at the largest history."""
    cases = [r for r in results if r.case in ("no-op", "incremental", "full refresh", "lookback")]
    if not cases:
        return ""
    top = max(r.history_days for r in cases if r.case != "lookback") if any(
        r.case != "lookback" for r in cases) else None
    chosen = [r for r in cases if r.history_days == top or r.case == "lookback"]
    chosen.sort(key=lambda r: r.layout != cases[0].layout)
    nodes: list[str] = []
    for r in chosen:
        for run in r.runs:
            for uid in run.models:
                if uid not in nodes:
                    nodes.append(uid)
    head = "| node | " + " | ".join(r.label for r in chosen) + " |"
    lines = [head, "| --- |" + " ---: |" * len(chosen)]
    for uid in nodes:
        cells = []
        for r in chosen:
            vals = [run.models[uid] for run in r.runs if uid in run.models]
            cells.append(f"{statistics.median(vals):.2f}" if vals else "–")
        lines.append(f"| {uid.split('.', 2)[-1] if uid.startswith('model.') else uid} | "
                     + " | ".join(cells) + " |")
    walls = " | ".join(_fmt_s(r.wall) for r in chosen)
    lines.append(f"| **wall (whole invocation)** | {walls} |")
    return "\n".join(lines)


def _short(node: str) -> str:
    if node.startswith(("model.", "operation.")):
        return node.split(".", 2)[-1]
    return node or "(dbt internals)"


def node_breakdown(results: list[CaseResult], case: str, layout: str) -> str:
    """Round trips of one run of ``case`` (largest history), per dbt node, and the slowest
    statements: where the fixed cost and the reads come from."""
    rs = [r for r in results if r.case == case and r.layout == layout]
    if not rs or not rs[-1].runs:
        return ""
    run = rs[-1].runs[len(rs[-1].runs) // 2]
    stmts = run.reads["statements"]
    per: dict[str, dict[str, float]] = {}
    for st in stmts:
        d = per.setdefault(_short(st.get("node", "")), {"n": 0, "ms": 0, "rows": 0})
        d["n"] += 1
        d["ms"] += st["ms"]
        d["rows"] += st["rows_read"]
    dbt_s = {_short(uid): t for uid, t in run.models.items()}
    # dbt-spark's own: PyHive's `USE` as dbt opens each node's connection, and dbt's
    # listings of schemas and relations at the start; the rest are the package's
    uses = sum(1 for st in stmts if st["sql"].lstrip().upper().startswith("USE "))
    listings = sum(1 for st in stmts if _short(st.get("node", "")).startswith(("list_schemas", "list_")))
    lines = [f"{rs[-1].label}: {len(stmts)} Spark statements, "
             f"{sum(st['ms'] for st in stmts) / 1000:.2f} s of Spark time in a {run.wall_s:.2f} s "
             f"invocation; {uses + listings} of them dbt-spark's own ({uses} `USE` as a node's connection "
             f"opens, {listings} listings), {len(stmts) - uses - listings} the package's.", ""]
    timeline = run.reads.get("timeline") or {}
    if timeline:
        # from the Thrift server's own events in the event log (metrics.statement_timeline)
        lines += [f"Where the {run.wall_s:.2f} s went, by the Thrift server's events: Spark executed the "
                  f"{timeline['statements']} statements for {timeline['execution_s']:.2f} s, and spent "
                  f"{timeline['before_s']:.2f} s on them before their executions began (parse, analysis, "
                  f"planning, with their metastore calls and file listing); dbt spent "
                  f"{timeline['between_s']:.2f} s between statements (its compile and decisions, the "
                  f"round trips) and {run.wall_s - timeline['span_s']:.2f} s before the first statement "
                  f"and after the last (start-up and parse).", ""]
    lines += ["| dbt node (or connection) | statements | Spark s | dbt s | events rows read |",
              "| --- | ---: | ---: | ---: | ---: |"]
    for name, d in per.items():
        dbt = dbt_s.get(name)
        lines.append(f"| {name} | {d['n']:.0f} | {d['ms'] / 1000:.2f} | "
                     f"{'–' if dbt is None else f'{dbt:.2f}'} | {d['rows']:,.0f} |")
    lines += ["", "Slowest statements:", "", "| ms | events rows read | node | statement |",
              "| ---: | ---: | --- | --- |"]
    for st in sorted(stmts, key=lambda x: -x["ms"])[:12]:
        sql = st["sql"].replace("|", "\\|")[:110]
        lines.append(f"| {st['ms']} | {st['rows_read']:,} | {_short(st.get('node', ''))} | `{sql}` |")
    return "\n".join(lines)


def table_reads(results: list[CaseResult]) -> str:
    """Rows read from every table by the package cases: what grows with history."""
    chosen = []
    for layout in dict.fromkeys(r.layout for r in results):
        mine = [r for r in results if r.layout == layout]
        chosen += [r for r in mine if r.case in ("incremental", "no-op", "lookback")]
        chosen += [r for r in mine if r.case == "full refresh"][-1:]
    if not chosen:
        return ""
    tables: list[str] = []
    for r in chosen:
        for run in r.runs:
            for t in run.reads.get("by_table", {}):
                if t not in tables:
                    tables.append(t)
    head = "| table | " + " | ".join(r.label for r in chosen) + " |"
    lines = [head, "| --- |" + " ---: |" * len(chosen)]
    for t in sorted(tables):
        cells = []
        for r in chosen:
            vals = [run.reads.get("by_table", {}).get(t, {}).get("rows", 0) for run in r.runs]
            cells.append(_fmt_n(statistics.median(vals)) if vals else "–")
        lines.append(f"| {t} | " + " | ".join(cells) + " |")
    split = table_reads_by_node(chosen)
    return "\n".join(lines) + ("\n\n" + split if split else "")


def table_reads_by_node(chosen: list[CaseResult]) -> str:
    """The incremental runs' rows read per table and dbt node (the middle run of each
    case; the statements' own scans, nested executions included): which model's read of
    a table grows. The events table is left out (see the round trips)."""
    rs = [r for r in chosen if r.case == "incremental" and r.runs]
    counts: dict[tuple[str, str], dict[str, int]] = {}
    for r in rs:
        run = r.runs[len(r.runs) // 2]
        for st in run.reads.get("statements", []):
            for table, rows in st.get("tables", {}).items():
                if rows and not table.endswith(".events"):
                    cell = counts.setdefault((table, _short(st.get("node", ""))), {})
                    cell[r.label] = cell.get(r.label, 0) + rows
    if not counts:
        return ""
    lines = ["Incremental runs, per table and dbt node:", "",
             "| table | dbt node | " + " | ".join(r.label for r in rs) + " |",
             "| --- | --- |" + " ---: |" * len(rs)]
    for (table, node), cell in sorted(counts.items()):
        lines.append(f"| {table} | {node} | " + " | ".join(_fmt_n(cell.get(r.label, 0)) for r in rs) + " |")
    return "\n".join(lines)


def make_plot(results: list[CaseResult], path: Path) -> bool:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        log("matplotlib is not installed (pip install -r benchmarks/requirements.txt): no plot")
        return False
    layouts = list(dict.fromkeys(r.layout for r in results))
    dashes = {layout: ("-" if i == 0 else "--") for i, layout in enumerate(layouts)}
    fig, (ax1, ax2, ax3) = plt.subplots(1, 3, figsize=(17, 4.8))
    markers = {"incremental": "o", "full refresh": "s", "microbatch": "^"}
    for layout in layouts:
        for case, marker in markers.items():
            rs = sorted((r for r in results if r.case == case and r.layout == layout),
                        key=lambda r: r.history_days)
            if not rs:
                continue
            xs = [r.history_days for r in rs]
            work = [r.work_s if r.work_s is not None else r.wall for r in rs]
            label = f"{case} ({layout})"
            ax1.plot(xs, work, marker + dashes[layout], label=label)
            ax2.plot(xs, [max(1, r.median_read("rows")) for r in rs], marker + dashes[layout], label=label)
    # rows read per table by an incremental run: what grows with history
    incs = [r for r in results if r.case == "incremental"]
    tables = sorted({t for r in incs for run in r.runs for t in run.reads.get("by_table", {})
                     if "__si_" not in t})
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for i, table in enumerate(tables):
        for layout in layouts:
            rs = sorted((r for r in incs if r.layout == layout), key=lambda r: r.history_days)
            ys = [statistics.median(run.reads.get("by_table", {}).get(table, {}).get("rows", 0)
                                    for run in r.runs) for r in rs]
            if not any(ys):
                continue
            ax3.plot([r.history_days for r in rs], [max(1, y) for y in ys], "o" + dashes[layout],
                     color=colors[i % len(colors)],
                     label=f"{table.split('.')[-1].replace('spark_incremental_', '')} ({layout})")
    ax1.set_xlabel("days of history")
    ax1.set_ylabel("work time, s (wall − no-op)")
    ax1.set_title("work time of one run")
    ax2.set_xlabel("days of history")
    ax2.set_ylabel("rows read from the events table")
    ax2.set_yscale("log")
    ax2.set_title("rows read (Spark scan metrics)")
    ax3.set_xlabel("days of history")
    ax3.set_ylabel("rows read by an incremental run")
    ax3.set_yscale("log")
    ax3.set_title("rows read per table (incremental run)")
    for ax in (ax1, ax2, ax3):
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=6 if ax is ax3 else 8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def microbatch_check_lines(checks: list[dict[str, Any]]) -> list[str]:
    if not checks:
        return []
    lines = ["## Like for like: microbatch's sessions of the new day against the package's", "",
             "Rows equal in every column; a session that began the day before and ran past midnight"
             " is a row of its own in microbatch (it does not sessionise across days): counted apart.", "",
             "| layout | day | package rows | microbatch rows | equal | microbatch rows of sessions begun"
             " the day before | other microbatch rows differing | package rows differing | result |",
             "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |"]
    for c in checks:
        lines.append(f"| {c['layout']} | {c['day']} | {c['package_rows']:,} | {c['microbatch_rows']:,} | "
                     f"{c['equal_rows']:,} | {c['microbatch_rows_of_earlier_sessions']:,} | "
                     f"{c['microbatch_rows_differing']:,} | {c['package_rows_differing']:,} | "
                     f"{'equal' if c['equal'] else '**differ**'} |")
    return lines + [""]


def write_report(bench: Bench, machine: dict[str, Any], targets: dict[str, Any],
                 out_dir: Path, elapsed_s: float, plotted: bool) -> Path:
    a = bench.args
    out_dir.mkdir(parents=True, exist_ok=True)
    total_days = bench.loaded_to + 1
    rows_from_log = any(run.reads.get("rows_from", "").startswith("every scan")
                        for r in bench.results for run in r.runs)
    mem = machine["memory_gb"]
    server_kind = (f"the Thrift server on port {a.port}, started outside the benchmark" if a.port is not None
                   else f"local[2] Thrift server, driver {a.driver_memory}")
    md = [
        "# spark_incremental benchmark",
        "",
        f"Run {dt.datetime.now(dt.timezone.utc):%Y-%m-%d %H:%M} UTC with `python -m benchmarks.run "
        f"{' '.join(sys.argv[1:])}`, in {elapsed_s / 60:.1f} min.",
        "",
        f"**Size**: {a.days} days × {a.events_per_day:,} events a day (+1 new day per level: "
        "at a level of L days, a catch-up run to day L − 2 and a daily run of day L − 1 are set-up "
        "runs, not measured, so the measured run of the new day follows a daily run, as in production"
        f"{', +4 days for the lookback case' if 'lookback' in a.cases else ''}; {total_days} days loaded "
        f"at the end), {a.files_per_day} files a day ({' then '.join(a.layouts)} layout: "
        "ordered = each file an hour of collector time, unordered = each file a hashed sample of the day; "
        f"every case runs on each layout from scratch); levels of history {', '.join(map(str, a.levels))} days; "
        f"{a.warmups} warm-up + {a.repeats} measured runs per case.",
        "",
        f"**Package**: {bench.package_source}.",
        "",
        *([f"**Lifecycle history (synthetic)**: {lh['rows']:,} lifecycle manifest rows inserted directly "
           f"after the catch-up run to day {a.levels[0] - 1} ({lh['days']} days × {lh['sessions_per_day']} "
           f"sessions, start dates {lh['from']} .. {lh['to']}, uuid-shaped ids with '_' for the first '-', "
           "no events behind them); "
           "the session id filter was emptied then, so the next run (the first level's daily set-up run) "
           "rebuilt it over every lifecycle row.", ""]
          if (lh := bench.lifecycle_history) else []),
        f"**Machine**: {machine['cores']} cores ({machine['cpu']}), {mem} GB memory, "
        f"Spark {machine['spark']} ({server_kind}), "
        f"dbt-core {machine['dbt_core']}, dbt-spark {machine['dbt_spark']}, Python {machine['python']}; "
        f"load average at the end {', '.join(f'{x:.1f}' for x in machine['load_avg_at_end'])}"
        " (the machine may be shared).",
        "",
        "Work s = wall − the fixed cost of the same tool: the package's no-op (median) at the same history; for microbatch, its run of one empty day batch. Rows / files / partitions read:"
        " scans of the events table in the Spark SQL metrics of the invocation (medians). Spark CPU s:"
        " CPU time of Spark's tasks in the invocation (work, hardly changed by other load). Load:"
        " 1-minute load average at the end of the runs (2 cores: above 2 means waiting for CPU). Rows needed ="
        " events in the run's window + events of the sessions it reprocessed outside the window.",
        *([" Rows read (every table): every scan that ran, from Spark's event log (each plan an"
           " execution went through names its scans' metrics; the tasks' updates are summed), so they"
           " include the scans adaptive execution ran, found a join side empty and cut from the final"
           " plan; files and partitions read: the final plans. Rows not counted: rows the invocation's"
           " stages read from files (every table) that no counted scan accounts for (a check, 0"
           " expected)."]
          if rows_from_log else
          [" Rows read: the scans of the final plans. Rows not counted: rows the invocation's stages read"
           " from files (every table) that no scan of a final plan reports: adaptive execution ran those"
           " scans, found a join side empty and cut that part from the plan the metrics come from, so the"
           " per-table figures miss them; the targets on rows read give the bound with them counted as"
           " events rows. (The bench's own server writes an event log, which counts them.)"]),
        "",
        results_table(bench.results),
        "",
        "## Targets",
        "",
        targets_table(targets),
        "",
        "## dbt execution time per node (median s)",
        "",
        model_timings(bench.results),
        "",
        "## Rows read per table (median; Spark scan metrics)",
        "",
        table_reads(bench.results),
        "",
        "## Round trips: an incremental run and a no-op run (largest history)",
        "",
        *[part for layout in a.layouts for part in (
            node_breakdown(bench.results, "incremental", layout), "",
            node_breakdown(bench.results, "no-op", layout), "")],
        *microbatch_check_lines(bench.microbatch_checks),
        "## Set-up runs (not measured)",
        "",
        "| layout | run | wall s | events rows read |",
        "| --- | --- | ---: | ---: |",
        *[f"| {s.get('layout', '')} | {s['label']} | {s['wall_s']:.1f} | {s['rows_read']:,} |"
          for s in bench.setup_runs],
        "",
    ]
    if plotted:
        md[4:4] = ["![work time, rows read of the events table and rows read per table against "
                   "days of history](plot.png)", ""]
    path = out_dir / "results.md"
    path.write_text("\n".join(md))
    raw = {
        "args": {k: (list(v) if isinstance(v, tuple) else v) for k, v in vars(a).items()},
        "machine": machine,
        "elapsed_s": elapsed_s,
        "targets": targets,
        "results": [r.to_dict() for r in bench.results],
        "setup_runs": bench.setup_runs,
        "lifecycle_history": bench.lifecycle_history,
        "microbatch_checks": bench.microbatch_checks,
    }
    (out_dir / "raw.json").write_text(json.dumps(raw, indent=1, default=str))
    return path


# ----------------------------------------------------------------------------- CLI
ALL_CASES = ("incremental", "no-op", "microbatch", "full-refresh", "floor", "lookback")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m benchmarks.run",
                                description="spark_incremental benchmark (issue 6)")
    p.add_argument("--days", type=int, default=None, help="days of history (default 60)")
    p.add_argument("--events-per-day", type=int, default=None, help="default 300000")
    p.add_argument("--repeats", type=int, default=None, help="measured runs per case (default 3)")
    p.add_argument("--warmups", type=int, default=None, help="warm-up runs per case (default 1)")
    p.add_argument("--levels", default=None,
                   help="comma-separated days of history to measure at (default 7,30,60 up to --days)")
    p.add_argument("--cases", default=",".join(ALL_CASES),
                   help=f"comma-separated subset of {','.join(ALL_CASES)}")
    p.add_argument("--quick", action="store_true",
                   help="smoke size: 3 days x 2000 events, 1 run per case, no warm-up, no lookback")
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--files-per-day", type=int, default=24)
    p.add_argument("--layouts", default=None,
                   help="comma-separated layouts of a day's files, each run from scratch: "
                        f"{', '.join(generate.LAYOUTS)} (default both; --quick: unordered)")
    p.add_argument("--lifecycle-days", type=int, default=0,
                   help="after the first catch-up run, insert this many days of synthetic lifecycle "
                        "manifest rows before the first event day and empty the session id filter "
                        "(the next run rebuilds it): a long lifecycle history without its events")
    p.add_argument("--var", dest="dbt_var", action="append", default=[], metavar="NAME=VALUE",
                   help="a dbt var for every run, as text (as users pass them through env_var), "
                        "e.g. spark_incremental__session_filter_buckets=341; repeatable")
    p.add_argument("--server-conf", action="append", default=[], metavar="KEY=VALUE",
                   help="a Spark conf for the bench's own Thrift server, after the test harness's and "
                        "the bench's own (which it overrides), e.g. spark.sql.filesourceTableRelationCacheSize=1000; "
                        "repeatable")
    p.add_argument("--schema-prefix", default="bench")
    p.add_argument("--driver-memory", default="4g")
    p.add_argument("--results-dir", type=Path, default=RESULTS_DIR)
    p.add_argument("--plot-from", type=Path, default=None, metavar="RAW_JSON",
                   help="only draw plot.png (into --results-dir) from a run's raw.json, e.g. one "
                        "measured without matplotlib installed; runs nothing")
    p.add_argument("--workdir", type=Path, default=None, help="default: a new temp dir")
    p.add_argument("--keep-workdir", action="store_true")
    p.add_argument("--live-package", action="store_true",
                   help="run the working tree's package, not a copy made at the start")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=None,
                   help="use this running Thrift server instead of starting one (needs --ui-url)")
    p.add_argument("--ui-url", default=None, help="its Spark UI, e.g. http://127.0.0.1:4040")
    p.add_argument("--event-log-dir", type=Path, default=None,
                   help="with --port: its spark.eventLog.dir (a local folder), for the rows of scans "
                        "adaptive execution cut from the final plans; without, rows come from the final plans")
    a = p.parse_args(argv)
    quick = a.quick
    a.days = a.days or (3 if quick else 60)
    a.events_per_day = a.events_per_day or (2000 if quick else 300_000)
    a.repeats = a.repeats or (1 if quick else 3)
    a.warmups = a.warmups if a.warmups is not None else (0 if quick else 1)
    if a.levels:
        levels = sorted({int(x) for x in a.levels.split(",") if x.strip()})
    elif quick:
        levels = [a.days]
    else:
        levels = sorted({min(x, a.days) for x in DEFAULT_LEVELS} | {a.days})
    if not levels or levels[0] < 1 or levels[-1] > a.days:
        p.error(f"--levels must be between 1 and --days ({a.days})")
    a.levels = levels
    cases = [c.strip() for c in a.cases.split(",") if c.strip()]
    if quick and a.cases == ",".join(ALL_CASES):
        cases = [c for c in cases if c != "lookback"]
    unknown = set(cases) - set(ALL_CASES)
    if unknown:
        p.error(f"unknown cases {sorted(unknown)}; known: {', '.join(ALL_CASES)}")
    a.cases = cases
    layouts = [x.strip() for x in (a.layouts or ("unordered" if quick else ",".join(generate.LAYOUTS))).split(",")
               if x.strip()]
    if not layouts or set(layouts) - set(generate.LAYOUTS):
        p.error(f"--layouts: one or more of {', '.join(generate.LAYOUTS)}, got {a.layouts!r}")
    a.layouts = list(dict.fromkeys(layouts))
    bad = [v for v in a.dbt_var if "=" not in v or not v.split("=", 1)[0].strip()]
    if bad:
        p.error(f"--var takes NAME=VALUE, got {bad}")
    a.dbt_vars = {k.strip(): v for k, v in (x.split("=", 1) for x in a.dbt_var)}
    bad = [v for v in a.server_conf if "=" not in v or not v.split("=", 1)[0].strip().startswith("spark.")]
    if bad:
        p.error(f"--server-conf takes spark.KEY=VALUE, got {bad}")
    a.server_confs = {k.strip(): v.strip() for k, v in (x.split("=", 1) for x in a.server_conf)}
    if a.server_confs and a.port is not None:
        p.error("--server-conf sets the bench's own server: not with --port")
    if a.lifecycle_days < 0:
        p.error(f"--lifecycle-days must be 0 or more, got {a.lifecycle_days}")
    if (a.port is None) != (a.ui_url is None):
        p.error("--port and --ui-url go together")
    return a


def _stop_on_sigterm(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    # a bench stopped by SIGTERM (or Ctrl-C) still writes the report of what it measured
    # and stops its Spark server
    if threading.current_thread() is not threading.main_thread():
        return _main(args)
    previous = signal.signal(signal.SIGTERM, _stop_on_sigterm)
    try:
        return _main(args)
    finally:
        signal.signal(signal.SIGTERM, previous)


def results_from_raw(raw_path: Path) -> list[CaseResult]:
    """The cases of a run's raw.json (write_report), for drawing its plot again."""
    raw = json.loads(raw_path.read_text())
    return [CaseResult(case=r["case"], history_days=r["history_days"], layout=r["layout"],
                       runs=[Invocation(**run) for run in r["runs"]], needed=r["needed"],
                       work_s=r["work_s"])
            for r in raw["results"]]


def _main(args: argparse.Namespace) -> int:
    if args.plot_from is not None:
        args.results_dir.mkdir(parents=True, exist_ok=True)
        if not make_plot(results_from_raw(args.plot_from), args.results_dir / "plot.png"):
            return 1
        log(f"wrote {args.results_dir / 'plot.png'} from {args.plot_from}")
        return 0
    t0 = time.monotonic()
    workdir = Path(args.workdir or tempfile.mkdtemp(prefix="spark_incremental_bench_")).resolve()
    workdir.mkdir(parents=True, exist_ok=True)
    server = None
    try:
        if args.port is None:
            log(f"starting a Spark Thrift server under {workdir}")
            server = start_server(workdir / "spark", args.driver_memory, workdir / "eventlog",
                                  conf=args.server_confs)
            host, port, ui_url = server.host, server.port, server.ui_url
            log(f"  Spark {server.spark_version} on port {port}, UI {ui_url} "
                f"(started in {server.started_in_s:.0f} s)")
        else:
            host, port, ui_url = args.host, args.port, args.ui_url
        bench = Bench(args, host, port, ui_url, workdir,
                      event_log=(workdir / "eventlog") if server is not None else args.event_log_dir)
        spark_version = str(bench.sql.scalar("select version()")).split()[0]
        try:
            bench.run()
        finally:
            elapsed = time.monotonic() - t0
            if bench.results:
                bench._work_times()  # also when the run was stopped early
                targets = compute_targets(bench.results, args.events_per_day)
                args.results_dir.mkdir(parents=True, exist_ok=True)
                plotted = make_plot(bench.results, args.results_dir / "plot.png")
                path = write_report(bench, machine_info(spark_version), targets,
                                    args.results_dir, elapsed, plotted)
                print()
                print(results_table(bench.results))
                print()
                print(targets_table(targets))
                print()
                log(f"wrote {path}" + (f" and {args.results_dir / 'plot.png'}" if plotted else "")
                    + f" ({elapsed / 60:.1f} min)")
            bench.sql.close()
    finally:
        if server is not None:
            server.stop()
        if not args.keep_workdir and args.workdir is None:
            shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Rows and files a dbt invocation read from the events table, from Spark's own metrics.

The Spark driver's REST API lists every SQL execution with the metrics of its plan nodes
(``/api/v1/applications/<app>/sql/<id>?details=true``). A ``Scan parquet
<catalog>.<schema>.<table>`` node reports ``number of output rows`` (rows the Parquet
reader produced, after partition pruning and row-group skipping by min/max statistics,
before any later Filter), ``number of files read``, ``size of files read`` and
``number of partitions read``. Summing those over the scans of the events table of the
executions an invocation started gives what it read. Nothing is estimated.

One blind spot, measured: adaptive query execution can run the stages of a join side,
find it empty, and replace that part of the plan with an empty relation; the REST API then
reports the final plan only, so those scans' rows are missing from its per-table sums.
``stage_totals_since`` counts the rows every stage read from files (all tables); the
difference (``Reads.dropped_rows``) is what the per-table figures miss. With Spark's event
log (``EventLog``; the bench's own server writes one) the rows are counted per scan that
ran: every plan an execution went through names its scans' metric ids, and the tasks'
updates of those ids are summed, so the per-table and per-statement rows include the
scans cut from the final plan (files and partitions stay the final plan's).

Usage::

    probe = SqlMetrics("http://127.0.0.1:4040")
    mark = probe.mark()
    ... run dbt ...
    reads = probe.reads_since(mark, "bench_atomic", "events")
"""

from __future__ import annotations

import json
import re
import time
import urllib.error
import urllib.request
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

_ANY_SCAN = re.compile(r"^Scan \w+ (\S+)$")
_UNITS = {"B": 1, "KiB": 1024, "MiB": 1024**2, "GiB": 1024**3, "TiB": 1024**4}
DONE = {"COMPLETED", "FAILED"}


_DBT_COMMENT = re.compile(r"^\s*/\*\s*(\{.*?\})\s*\*/\s*", re.DOTALL)


def split_dbt_comment(sql: str) -> tuple[str, str]:
    """dbt prefixes each statement with ``/* {"app": "dbt", ..., "node_id": ...} */``:
    return (node_id or connection_name or '', the SQL without the comment)."""
    m = _DBT_COMMENT.match(sql)
    if not m:
        return "", sql
    try:
        info = json.loads(m.group(1))
    except ValueError:
        return "", sql[m.end():]
    who = info.get("node_id") or info.get("connection_name") or ""
    return str(who), sql[m.end():]


def parse_count(text: str) -> int:
    """'15,145' -> 15145; for 'total (min, med, max ...)\\n12 (...)' the total."""
    first = text.strip().splitlines()[-1] if text.strip().startswith("total") else text
    m = re.search(r"-?[\d,]+", first)
    return int(m.group(0).replace(",", "")) if m else 0


def parse_size(text: str) -> int:
    """'157.5 KiB' -> bytes; for 'total (...)\\n1.2 MiB (...)' the total."""
    first = text.strip().splitlines()[-1] if text.strip().startswith("total") else text
    m = re.search(r"([\d.,]+)\s*(B|KiB|MiB|GiB|TiB)", first)
    if not m:
        return 0
    return int(float(m.group(1).replace(",", "")) * _UNITS[m.group(2)])


@dataclass
class ScanRead:
    execution_id: int
    node: str
    rows: int
    files: int
    bytes: int
    partitions: int
    desc: str
    # files Spark listed for the scan: more than ``files`` when a filter known only at run
    # time (a subquery, dynamic partition pruning) pruned partitions after every
    # partition's files were listed ("static number of files read")
    listed: int = 0


@dataclass
class Reads:
    """What the executions of one invocation read from one table."""

    rows: int = 0
    files: int = 0
    bytes: int = 0
    partitions: int = 0
    scans: int = 0
    executions: int = 0  # statements Spark ran (nested executions and a command's
    #                      CommandResult echo are part of their statement, not counted)
    spark_ms: int = 0  # sum of the statements' durations
    cpu_s: float = 0.0  # CPU time of Spark's tasks (set by the caller, see stage_totals_since)
    input_rows: int = 0  # rows every stage read from files, all tables (stage_totals_since)
    dropped_rows: int = 0  # of those, rows no scan in ``rows`` counts (see below)
    rows_from: str = "final plans"  # or "every scan that ran (event log)"
    scan_details: list[ScanRead] = field(default_factory=list)
    statements: list[dict[str, Any]] = field(default_factory=list)
    by_table: dict[str, dict[str, int]] = field(default_factory=dict)  # every table scanned
    timeline: dict[str, Any] = field(default_factory=dict)  # statement_timeline (event log only)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class SqlMetrics:
    """Reads the SQL executions of the (only) application of a Spark driver's UI."""

    def __init__(self, ui_url: str, timeout_s: float = 30.0) -> None:
        self.base = ui_url.rstrip("/") + "/api/v1/applications"
        self.timeout_s = timeout_s
        self._app: str | None = None
        self.lost_executions = 0  # listed by Spark but without a plan graph: left out

    def _get(self, path: str) -> Any:
        with urllib.request.urlopen(self.base + path, timeout=self.timeout_s) as resp:
            return json.load(resp)

    @property
    def app_id(self) -> str:
        if self._app is None:
            apps = self._get("")
            if not apps:
                raise RuntimeError(f"no application at {self.base}")
            self._app = str(apps[0]["id"])
        return self._app

    def executions(self) -> list[dict[str, Any]]:
        """All retained executions, without node details (cheap)."""
        try:
            return self._get(f"/{self.app_id}/sql?details=false&offset=0&length=1000000")
        except urllib.error.HTTPError as e:
            if e.code != 404:
                raise
        # Spark answers the whole list 404 once one execution in it has no plan graph in
        # the UI's store (seen on a test server after a few thousand statements): page
        # through the list, halving a page that fails, and leave out the lost ones.
        found: list[dict[str, Any]] = []
        offset, page = 0, 256
        while True:
            rows, lost, end = self._page(offset, page)
            if rows == [] and lost == page:
                raise RuntimeError(f"{self.base}/{self.app_id}/sql: every execution of "
                                   f"[{offset}, {offset + page}) answers 404")
            self.lost_executions += lost
            found.extend(rows)
            if end:
                return found
            offset += page

    def _page(self, offset: int, length: int) -> tuple[list[dict[str, Any]], int, bool]:
        """The executions at ``[offset, offset + length)`` of the list, how many of those
        answer 404 on their own, and whether the list ends in this page."""
        try:
            rows = self._get(f"/{self.app_id}/sql?details=false&offset={offset}&length={length}")
            return rows, 0, len(rows) < length
        except urllib.error.HTTPError as e:
            if e.code != 404:
                raise
        if length == 1:
            return [], 1, False
        half = length // 2
        first, lost, end = self._page(offset, half)
        if end:
            return first, lost, True
        second, lost2, end = self._page(offset + half, length - half)
        return first + second, lost + lost2, end

    def execution(self, execution_id: int) -> dict[str, Any]:
        return self._get(f"/{self.app_id}/sql/{execution_id}?details=true&planDescription=false")

    def mark(self) -> int:
        """The largest execution id so far (-1 when none): pass to ``reads_since``."""
        ids = [int(e["id"]) for e in self.executions()]
        return max(ids, default=-1)

    def stage_mark(self) -> int:
        """The largest stage id so far (-1 when none): pass to ``cpu_since``."""
        stages = self._get(f"/{self.app_id}/stages")
        return max((int(st["stageId"]) for st in stages), default=-1)

    def cpu_since(self, stage_mark: int) -> float:
        """CPU seconds Spark's tasks spent in the stages after ``stage_mark``: the work
        done, unlike wall time hardly changed by other processes on a shared machine."""
        return self.stage_totals_since(stage_mark)[0]

    def stage_totals_since(self, stage_mark: int) -> tuple[float, int]:
        """CPU seconds and rows read from files (``inputRecords``, every table) of the
        stages after ``stage_mark``. The rows count every stage that ran, including those
        of scans that adaptive execution ran and then cut from the final plan (a join side
        found empty at run time): the plan metrics ``reads_since`` sums lose those."""
        stages = self._get(f"/{self.app_id}/stages?status=complete")
        after = [st for st in stages if int(st["stageId"]) > stage_mark]
        ns = sum(int(st.get("executorCpuTime") or 0) for st in after)
        rows = sum(int(st.get("inputRecords") or 0) for st in after)
        return ns / 1e9, rows

    def _settled(self, mark: int, settle_s: float = 0.4, timeout_s: float = 30.0) -> list[dict]:
        """Executions after ``mark``, once all are done and no new one appeared for a while
        (the UI listener runs behind the query results)."""
        deadline = time.monotonic() + timeout_s
        last: list[int] | None = None
        while True:
            new = [e for e in self.executions() if int(e["id"]) > mark]
            ids = sorted(int(e["id"]) for e in new)
            if ids == last and all(e["status"] in DONE for e in new):
                return sorted(new, key=lambda e: int(e["id"]))
            if time.monotonic() > deadline:
                return sorted(new, key=lambda e: int(e["id"]))
            last = ids
            time.sleep(settle_s)

    def reads_since(self, mark: int, schema: str, table: str,
                    event_log: EventLog | None = None, log_mark: int = 0) -> Reads:
        """Sum the scans of ``schema.table`` over the executions started after ``mark``.
        With ``event_log`` (and its mark taken with ``mark``), rows come from every scan
        that ran (``EventLog``); without, or when the log is not there, from the final
        plans (``Reads.rows_from`` says which)."""
        pattern = re.compile(
            rf"^Scan \w+ (?:\S+\.)?{re.escape(schema)}\.{re.escape(table)}$", re.IGNORECASE)
        events_name = f"{schema}.{table}".lower()
        reads = Reads()
        by_id: dict[int, dict[str, Any]] = {}
        settled = self._settled(mark)
        ran = None
        if event_log is not None:
            ran = event_log.rows_since(log_mark, max((int(e["id"]) for e in settled), default=-1))
        reads.rows_from = "final plans" if ran is None else "every scan that ran (event log)"
        if event_log is not None:
            reads.timeline = event_log.timeline_since(log_mark) or {}
        for summary in settled:
            eid = int(summary["id"])
            detail = self.execution(eid)
            root = int(detail.get("rootExecutionId", eid) if detail.get("rootExecutionId") is not None
                       else eid)
            nested = root != eid and root > mark
            if not nested:
                reads.executions += 1
                reads.spark_ms += int(summary.get("duration") or 0)
            tables: dict[str, int] = {}  # rows read per table by this execution
            for node in detail.get("nodes", []):
                any_scan = _ANY_SCAN.match(node.get("nodeName", ""))
                if any_scan:
                    metrics = {m["name"]: m["value"] for m in node.get("metrics", [])}
                    name = (any_scan.group(1).split(".", 1)[-1] if any_scan.group(1).count(".") > 1
                            else any_scan.group(1))
                    t = reads.by_table.setdefault(name, {"rows": 0, "files": 0, "scans": 0})
                    rows = parse_count(metrics.get("number of output rows", "0"))
                    tables[name] = tables.get(name, 0) + rows
                    t["files"] += parse_count(metrics.get("number of files read", "0"))
                    t["scans"] += 1
                if not pattern.match(node.get("nodeName", "")):
                    continue
                metrics = {m["name"]: m["value"] for m in node.get("metrics", [])}
                scan = ScanRead(
                    execution_id=eid,
                    node=node["nodeName"],
                    rows=parse_count(metrics.get("number of output rows", "0")),
                    files=parse_count(metrics.get("number of files read", "0")),
                    bytes=parse_size(metrics.get("size of files read", "0 B")),
                    partitions=parse_count(metrics.get("number of partitions read", "0")),
                    desc=node.get("desc", "")[:2000],
                )
                scan.listed = parse_count(metrics.get("static number of files read", str(scan.files)))
                reads.scan_details.append(scan)
                reads.files += scan.files
                reads.bytes += scan.bytes
                reads.partitions += scan.partitions
                reads.scans += 1
            if ran is not None:
                tables = dict(ran.get(eid, {}))
            for name, rows in tables.items():
                reads.by_table.setdefault(name, {"rows": 0, "files": 0, "scans": 0})["rows"] += rows
            scanned = sum(rows for name, rows in tables.items() if name.lower() == events_name)
            reads.rows += scanned
            if nested:
                # a statement's own sub-execution (e.g. the insert of a CTAS): same round trip
                if root in by_id:
                    by_id[root]["rows_read"] += scanned
                    for name, rows in tables.items():
                        by_id[root]["tables"][name] = by_id[root]["tables"].get(name, 0) + rows
                continue
            names = [n.get("nodeName", "") for n in detail.get("nodes", [])]
            if names == ["CommandResult"]:
                # a command runs as one execution and hands its result back as a second,
                # "CommandResult", execution: one round trip, not two
                reads.executions -= 1
                continue
            who, text = split_dbt_comment(str(summary.get("description", "")))
            statement = {
                "id": eid,
                "ms": int(summary.get("duration") or 0),
                "rows_read": scanned,
                "tables": tables,
                "node": who,
                "sql": " ".join(text.split())[:200],
            }
            by_id[eid] = statement
            reads.statements.append(statement)
        return reads


class EventLog:
    """Rows read per scan that ran, from the Spark event log of the (only) application
    whose log is in ``directory`` (``spark.eventLog.dir``). Read incrementally: ``mark``
    returns the log's size, ``rows_since`` the rows of the scans of the executions whose
    events follow it."""

    def __init__(self, directory: Path, timeout_s: float = 30.0) -> None:
        self.directory = directory
        self.timeout_s = timeout_s

    def _file(self) -> Path | None:
        """The running application's log (``.inprogress``; the only file when the folder is
        the bench's own); None when that is not one file."""
        if not self.directory.is_dir():
            return None
        files = [p for p in self.directory.iterdir() if p.is_file() and not p.name.startswith(".")]
        running = [p for p in files if p.name.endswith(".inprogress")]
        chosen = running if running else files
        return chosen[0] if len(chosen) == 1 else None

    def mark(self) -> int:
        log = self._file()
        return log.stat().st_size if log else 0

    @staticmethod
    def _events(log: Path, offset: int) -> list[dict[str, Any]]:
        """The events of the whole lines written after ``offset``."""
        with open(log, "rb") as fh:
            fh.seek(offset)
            data = fh.read()
        lines = data[: data.rfind(b"\n") + 1].splitlines()
        return [json.loads(line) for line in lines if line.strip()]

    def rows_since(self, offset: int, last_execution: int) -> dict[int, dict[str, int]] | None:
        """{execution id: {table: rows}} of every scan that ran in the executions logged
        after ``offset``, once the log holds the end of execution ``last_execution`` (the
        event log's writer runs behind the queries); None when there is no log or it does
        not get there in time."""
        log = self._file()
        if log is None:
            return None
        deadline = time.monotonic() + self.timeout_s
        while True:
            events = self._events(log, offset)
            ended = {int(e["executionId"]) for e in events
                     if e.get("Event", "").endswith("SQLExecutionEnd")}
            if last_execution < 0 or last_execution in ended:
                return self._rows(events)
            if time.monotonic() > deadline:
                return None
            time.sleep(0.2)

    def timeline_since(self, offset: int) -> dict[str, Any] | None:
        """``statement_timeline`` of the statements logged after ``offset``, once the log
        holds the end of every one of them that began (the writer runs behind); None
        when there is no log or no statement."""
        log = self._file()
        if log is None:
            return None
        deadline = time.monotonic() + self.timeout_s
        while True:
            timeline = statement_timeline(self._events(log, offset))
            if timeline is None or timeline["unfinished"] == 0 or time.monotonic() > deadline:
                return timeline
            time.sleep(0.2)

    @staticmethod
    def _rows(events: list[dict[str, Any]]) -> dict[int, dict[str, int]]:
        scans: dict[int, tuple[int, str]] = {}  # metric id -> (execution id, table)

        def walk(plan: dict[str, Any], execution: int) -> None:
            m = _ANY_SCAN.match(plan.get("nodeName", ""))
            if m:
                name = m.group(1).split(".", 1)[-1] if m.group(1).count(".") > 1 else m.group(1)
                for metric in plan.get("metrics", []):
                    if metric.get("name") == "number of output rows":
                        scans[int(metric["accumulatorId"])] = (execution, name)
            for child in plan.get("children", []):
                walk(child, execution)

        for e in events:  # every plan first: a plan update can follow its stages' tasks
            kind = e.get("Event", "")
            if kind.endswith("SQLExecutionStart") or kind.endswith("SQLAdaptiveExecutionUpdate"):
                walk(e.get("sparkPlanInfo") or {}, int(e["executionId"]))
        rows: dict[int, dict[str, int]] = {}
        for e in events:
            if e.get("Event") == "SparkListenerTaskEnd":
                for acc in (e.get("Task Info") or {}).get("Accumulables", []):
                    hit = scans.get(int(acc.get("ID", -1)))
                    if hit and acc.get("Update") is not None:
                        per_table = rows.setdefault(hit[0], {})
                        per_table[hit[1]] = per_table.get(hit[1], 0) + int(str(acc["Update"]))
        return rows


def statement_timeline(events: list[dict[str, Any]]) -> dict[str, Any] | None:
    """Where the time of the statements went, from the Thrift server's own events in a
    stretch of the event log: the statements of the sessions opened in it (a dbt
    invocation's connections; a client connected before, such as the bench's own, is left
    out). For each statement, from the server's receipt to its end: ``before_s``, until
    its first SQL execution began (parse, analysis, optimisation, physical planning, and
    the metastore calls and file listing they make); ``execution_s``, its executions.
    ``between_s``: from each statement's end to the next one's receipt (the client: dbt
    compiling and deciding, and the round trips). ``span_s``: from the first receipt to
    the last end. None when the stretch holds no such statement."""
    sessions: set[str] = set()
    ops: dict[str, dict[str, int | str]] = {}
    spans: dict[int, list[int | None]] = {}
    for e in events:
        kind = str(e.get("Event", "")).rsplit(".", 1)[-1]
        if kind == "SparkListenerThriftServerSessionCreated":
            sessions.add(str(e["sessionId"]))
        elif kind == "SparkListenerThriftServerOperationStart":
            ops[str(e["id"])] = {"session": str(e["sessionId"]), "start": int(e["startTime"])}
        elif kind == "SparkListenerThriftServerOperationFinish" and str(e["id"]) in ops:
            ops[str(e["id"])]["finish"] = int(e["finishTime"])
        elif kind == "SparkListenerSQLExecutionStart":
            spans[int(e["executionId"])] = [int(e["time"]), None]
        elif kind == "SparkListenerSQLExecutionEnd" and int(e["executionId"]) in spans:
            spans[int(e["executionId"])][1] = int(e["time"])
    mine = [op for op in ops.values() if op["session"] in sessions]
    done = sorted((op for op in mine if "finish" in op), key=lambda op: int(op["start"]))
    if not done:
        return None
    ended = [(int(a), int(b)) for a, b in spans.values() if b is not None]
    before = execution = between = 0
    last_end: int | None = None
    for op in done:
        start, finish = int(op["start"]), int(op["finish"])
        inside = [(a, b) for a, b in ended if start <= a <= finish]
        if inside:
            first = min(a for a, _ in inside)
            before += first - start
            execution += max(b for _, b in inside) - first
        else:
            before += finish - start
        if last_end is not None:
            between += max(0, start - last_end)
        last_end = finish if last_end is None else max(last_end, finish)
    first_start = int(done[0]["start"])
    return {"statements": len(done), "unfinished": len(mine) - len(done),
            "before_s": before / 1000, "execution_s": execution / 1000, "between_s": between / 1000,
            "span_s": ((last_end or first_start) - first_start) / 1000}


def wait_for_ui(ui_url: str, timeout_s: float = 60.0) -> SqlMetrics:
    deadline = time.monotonic() + timeout_s
    probe = SqlMetrics(ui_url)
    while True:
        try:
            probe.app_id
            return probe
        except (urllib.error.URLError, OSError, RuntimeError):
            if time.monotonic() > deadline:
                raise
            time.sleep(0.5)

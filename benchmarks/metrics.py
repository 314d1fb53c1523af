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
reports the final plan only, so those scans' rows are missing from the per-table sums.
``stage_totals_since`` counts the rows every stage read from files (all tables); the
difference (``Reads.dropped_rows``) is what the per-table figures miss.

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
    dropped_rows: int = 0  # of those, rows no scan of a final plan reports (see below)
    scan_details: list[ScanRead] = field(default_factory=list)
    statements: list[dict[str, Any]] = field(default_factory=list)
    by_table: dict[str, dict[str, int]] = field(default_factory=dict)  # every table scanned

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class SqlMetrics:
    """Reads the SQL executions of the (only) application of a Spark driver's UI."""

    def __init__(self, ui_url: str, timeout_s: float = 30.0) -> None:
        self.base = ui_url.rstrip("/") + "/api/v1/applications"
        self.timeout_s = timeout_s
        self._app: str | None = None

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
        return self._get(f"/{self.app_id}/sql?details=false&offset=0&length=1000000")

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

    def reads_since(self, mark: int, schema: str, table: str) -> Reads:
        """Sum the scans of ``schema.table`` over the executions started after ``mark``."""
        pattern = re.compile(
            rf"^Scan \w+ (?:\S+\.)?{re.escape(schema)}\.{re.escape(table)}$", re.IGNORECASE)
        reads = Reads()
        by_id: dict[int, dict[str, Any]] = {}
        for summary in self._settled(mark):
            eid = int(summary["id"])
            detail = self.execution(eid)
            root = int(detail.get("rootExecutionId", eid) if detail.get("rootExecutionId") is not None
                       else eid)
            nested = root != eid and root > mark
            if not nested:
                reads.executions += 1
                reads.spark_ms += int(summary.get("duration") or 0)
            scanned = 0
            tables: dict[str, int] = {}  # rows read per table by this execution
            for node in detail.get("nodes", []):
                any_scan = _ANY_SCAN.match(node.get("nodeName", ""))
                if any_scan:
                    metrics = {m["name"]: m["value"] for m in node.get("metrics", [])}
                    name = (any_scan.group(1).split(".", 1)[-1] if any_scan.group(1).count(".") > 1
                            else any_scan.group(1))
                    t = reads.by_table.setdefault(name, {"rows": 0, "files": 0, "scans": 0})
                    rows = parse_count(metrics.get("number of output rows", "0"))
                    t["rows"] += rows
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
                reads.scan_details.append(scan)
                reads.rows += scan.rows
                reads.files += scan.files
                reads.bytes += scan.bytes
                reads.partitions += scan.partitions
                reads.scans += 1
                scanned += scan.rows
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

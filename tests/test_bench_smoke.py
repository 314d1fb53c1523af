"""The benchmark driver works end to end at a tiny size (not timed: figures are not checked
against targets, only that they exist and are numbers)."""

from __future__ import annotations

import importlib.util
import json
import math
from pathlib import Path
from typing import Any

import pytest

from benchmarks import run


def _number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


@pytest.mark.slow  # a benchmark's driver, not the package: make test runs it, CI does not
def test_bench_quick_end_to_end(spark_server: Any, tmp_path: Path) -> None:
    results_dir = tmp_path / "results"
    rc = run.main([
        "--quick",
        "--cases", "incremental,no-op,microbatch,floor",
        "--port", str(spark_server.port),
        "--ui-url", spark_server.ui_url,
        "--schema-prefix", "bench_smoke",
        "--results-dir", str(results_dir),
        "--workdir", str(tmp_path / "work"),
    ])
    assert rc == 0
    md = (results_dir / "results.md").read_text()
    assert "| case | history (days) |" in md and "## Targets" in md
    if importlib.util.find_spec("matplotlib") is not None:  # benchmarks/requirements.txt
        assert (results_dir / "plot.png").stat().st_size > 1000
    raw = json.loads((results_dir / "raw.json").read_text())
    cases = {r["case"] for r in raw["results"]}
    assert {"incremental", "no-op", "microbatch", "dbt ls", "one-model dbt run"} <= cases
    for r in raw["results"]:
        assert _number(r["wall_s"]["median"]) and r["wall_s"]["median"] > 0, r["case"]
        assert _number(r["rows_read"]), r["case"]
        assert _number(r["files_read"]), r["case"]
    by_case = {r["case"]: r for r in raw["results"]}
    # Spark's metrics saw the runs read the events table
    assert by_case["incremental"]["rows_read"] > 0
    assert by_case["microbatch"]["rows_read"] > 0
    assert by_case["dbt ls"]["rows_read"] == 0
    needed = by_case["incremental"]["needed"]
    assert needed and needed["window_rows"] > 0
    assert _number(by_case["incremental"]["work_s"])
    for target in ("read_ratio", "noop_ratio", "microbatch_ratio"):
        assert _number(raw["targets"][target]["value"]), target
    # the plot can be drawn again from raw.json alone (a run measured without matplotlib)
    if importlib.util.find_spec("matplotlib") is not None:
        replot_dir = tmp_path / "replot"
        assert run.main(["--plot-from", str(results_dir / "raw.json"), "--results-dir", str(replot_dir)]) == 0
        assert (replot_dir / "plot.png").stat().st_size > 1000


def test_raw_json_gives_back_the_cases() -> None:
    """`--plot-from` rebuilds a run's cases from its raw.json: the committed default-size run
    reads back into cases that write the same raw entries."""
    raw_path = Path(run.__file__).parent / "results" / "raw.json"
    raw = json.loads(raw_path.read_text())
    cases = run.results_from_raw(raw_path)
    assert len(cases) == len(raw["results"]) > 0
    for case, entry in zip(cases, raw["results"]):
        assert json.loads(json.dumps(case.to_dict(), default=str)) == entry

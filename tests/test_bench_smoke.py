"""The benchmark driver works end to end at a tiny size (not timed: figures are not checked
against targets, only that they exist and are numbers)."""

from __future__ import annotations

import importlib.util
import json
import math
from pathlib import Path
from typing import Any

import pytest

from benchmarks import dbt_python_time, run
from tests.harness.dbt import DbtProject


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


def test_server_conf_reaches_only_the_bench_own_server() -> None:
    """`--server-conf spark.KEY=VALUE` is checked when parsed; a server the bench did not
    start (`--port`) is not the bench's to configure."""
    args = run.parse_args(["--quick", "--server-conf", "spark.sql.shuffle.partitions=200",
                           "--server-conf", "spark.sql.filesourceTableRelationCacheSize = 1000"])
    assert args.server_confs == {"spark.sql.shuffle.partitions": "200",
                                 "spark.sql.filesourceTableRelationCacheSize": "1000"}
    for bad in (["--server-conf", "shuffle=4"], ["--server-conf", "spark.sql.shuffle.partitions"],
                ["--server-conf", "spark.sql.shuffle.partitions=4", "--port", "1", "--ui-url", "http://x"]):
        with pytest.raises(SystemExit):
            run.parse_args(["--quick", *bad])


def test_dbt_python_time_times_the_package_templates(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The profiler hooks where dbt compiles a macro: an operation that checks the
    package's vars (no statement, no connection) compiles the package's templates, each
    timed once, in a call that starts from no compiled template."""
    project = DbtProject(tmp_path / "project", "127.0.0.1", 1, "t_python_time")
    for key, value in project.env().items():
        if value is None:
            monkeypatch.delenv(key, raising=False)
        else:
            monkeypatch.setenv(key, value)
    monkeypatch.chdir(project.project_dir)
    for _ in range(2):  # the second call compiles again: the process's cache was dropped
        found = dbt_python_time.profile_dbt(project.cli_args(
            ("run-operation", "spark_incremental.validate_config_vars"), None))
        assert found.success
        package = [c for c in found.compiled if c.unique_id.startswith(dbt_python_time.PACKAGE_PREFIX)]
        assert package and all(c.seconds > 0 and c.characters > 0 for c in package)
        assert len({c.unique_id for c in found.compiled}) == len(found.compiled)
        assert 0 < found.compile_s() < found.wall_s
        assert "the package's" in found.summary()

"""Run dbt against a throw-away copy of integration_tests/ (in-process, or as a child)."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping

REPO_ROOT = Path(__file__).resolve().parents[2]
INTEGRATION_TESTS_DIR = REPO_ROOT / "integration_tests"
PACKAGE_NAME = "spark_incremental"
PKG_PREFIX = "spark_incremental:"

# What gets copied from integration_tests/ into each test project.
_COPY_DIRS = ("models", "seeds", "macros", "tests", "snapshots", "analyses")
_COPY_FILES = ("dbt_project.yml", "profiles.yml")

# Vars for one run that the package also reads from an environment variable,
# SPARK_INCREMENTAL_<NAME>, at execution time only (the spec marks them `env`:
# macros/config/config_var_spec.sql). The harness passes them that way, so the --vars of one
# project stay the same from run to run and dbt keeps its partial parse: a changed --vars
# forces a full re-parse of the project (7 s of a dbt call on a loaded 2-core machine).
_ENV_VAR_NAMES = ("now", "changes", "changes_file", "restate", "models_to_remove",
                  "force_unlock", "log_plan", "plan_format", "fail_at")
ENV_VARS = {f"spark_incremental__{n}": f"SPARK_INCREMENTAL_{n.upper()}" for n in _ENV_VAR_NAMES}


def env_text(value: Any) -> str:
    """A var's value as the environment passes it: text as is, anything else as JSON
    (which YAML reads: true, 30, [..], {..})."""
    return value if isinstance(value, str) else json.dumps(value, default=str)


# dbt may prefix a time stamp (text log format) and a warning marker.
_LINE_PREFIX = re.compile(
    r"^(?:\d{2}:\d{2}:\d{2}(?:\.\d+)?\s+)?(?:\[(?:WARNING|WARN)\]:?\s*|Warning:\s*)?"
)

# Environment for every dbt call: no network calls, no colours in captured text.
_DBT_ENV = {
    "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
    "DBT_VERSION_CHECK": "false",
    "DBT_USE_COLORS": "false",
}


def _strip_prefix(line: str) -> str:
    return _LINE_PREFIX.sub("", line.strip(), count=1)


def sanitise_name(text: str, max_len: int = 40) -> str:
    """Lower-case identifier safe for a Spark schema name."""
    s = re.sub(r"[^a-z0-9_]+", "_", text.lower()).strip("_")
    return (s or "x")[:max_len].rstrip("_")


@dataclass
class DbtResult:
    success: bool
    lines: list[str]
    statuses: dict[str, str]
    exception: BaseException | None
    debug_lines: list[str] = field(default_factory=list, repr=False)
    result: Any = field(default=None, repr=False)

    def pkg_lines(self) -> list[str]:
        """Lines logged by the package (``spark_incremental: ...``), prefixes stripped."""
        out = []
        for line in self.lines:
            for sub in line.splitlines() or [""]:
                s = _strip_prefix(sub)
                if s.startswith(PKG_PREFIX):
                    out.append(s)
        return out

    def text(self) -> str:
        return "\n".join(self.lines)

    def tail(self, n: int = 60) -> str:
        return "\n".join("\n".join(self.lines).splitlines()[-n:])


@contextlib.contextmanager
def _patched_env(values: Mapping[str, str | None]) -> Iterator[None]:
    saved = {k: os.environ.get(k) for k in values}
    try:
        for k, v in values.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


@dataclass
class InvocationStats:
    """What the dbt invocations of a pytest session cost (printed in the terminal summary)."""

    count: int = 0
    seconds: float = 0.0
    full_parses: int = 0
    partial_parses: int = 0

    def add(self, seconds: float, debug_lines: list[str], lines: list[str]) -> None:
        self.count += 1
        self.seconds += seconds
        text = "\n".join(lines + debug_lines)
        if "Starting full parse" in text or "Unable to do partial parsing" in text:
            self.full_parses += 1
        elif "Partial parsing enabled" in text:
            self.partial_parses += 1


STATS = InvocationStats()


def _status(value: Any) -> str:
    return str(getattr(value, "value", value))


class DbtProject:
    """A private copy of integration_tests/ with its own schema.

    The package is installed by a symlink ``dbt_packages/spark_incremental -> REPO_ROOT``
    (what ``dbt deps`` would do for a ``local:`` package), so no ``dbt deps`` call.
    """

    def __init__(
        self,
        project_dir: Path,
        host: str,
        port: int,
        schema: str,
        default_vars: Mapping[str, Any] | None = None,
        source_dir: Path = INTEGRATION_TESTS_DIR,
        target: str = "thrift",
    ) -> None:
        self.project_dir = Path(project_dir).resolve()
        self.host = host
        self.port = port
        self.schema = schema.lower()
        self.target = target
        self.default_vars: dict[str, Any] = {
            "spark_incremental__events_schema": self.schema,
            **(default_vars or {}),
        }
        # vars passed by environment (ENV_VARS); a test of the var itself sets it to {}
        self.env_vars: dict[str, str] = dict(ENV_VARS)
        self._subprocess_count = 0
        self._build(Path(source_dir))

    @classmethod
    def create(
        cls,
        base_dir: Path,
        host: str,
        port: int,
        name: str = "project",
        default_vars: Mapping[str, Any] | None = None,
    ) -> "DbtProject":
        """A project in a fresh folder under ``base_dir`` with schema ``t_<name>_<uuid6>``."""
        short = uuid.uuid4().hex[:6]
        schema = f"t_{sanitise_name(name)}_{short}"
        return cls(Path(base_dir) / schema, host, port, schema, default_vars)

    # ------------------------------------------------------------- files
    def _build(self, source: Path) -> None:
        self.project_dir.mkdir(parents=True, exist_ok=True)
        for d in _COPY_DIRS:
            if (source / d).is_dir():
                shutil.copytree(source / d, self.project_dir / d, dirs_exist_ok=True)
        for f in _COPY_FILES:
            shutil.copy2(source / f, self.project_dir / f)
        (self.project_dir / "packages.yml").write_text(
            f"packages:\n  - local: {json.dumps(str(REPO_ROOT))}\n"
        )
        pkgs = self.project_dir / "dbt_packages"
        pkgs.mkdir(exist_ok=True)
        link = pkgs / PACKAGE_NAME
        if not link.is_symlink():
            link.symlink_to(REPO_ROOT, target_is_directory=True)

    def path(self, rel: str) -> Path:
        return self.project_dir / rel

    def write_file(self, path: str, text: str) -> Path:
        p = self.project_dir / path
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
        return p

    def read_file(self, path: str) -> str:
        return (self.project_dir / path).read_text()

    def write_model(self, path: str, sql: str) -> Path:
        """``path`` is relative to models/ (``.sql`` added when missing)."""
        if not path.endswith((".sql", ".yml", ".yaml", ".py")):
            path += ".sql"
        return self.write_file(f"models/{path}", sql)

    def remove_file(self, path: str) -> None:
        p = self.project_dir / path
        if not p.exists() and (self.project_dir / "models" / path).exists():
            p = self.project_dir / "models" / path
        p.unlink()

    def relation(self, name: str) -> str:
        return f"{self.schema}.{name}"

    # ------------------------------------------------------------- running
    def env(self, vars: Mapping[str, Any] | None = None) -> dict[str, str | None]:
        """The environment of one dbt call: connection, and the vars in ENV_VARS (an
        unset one is removed from the environment, so no value leaks between calls)."""
        merged = self.merged_vars(vars)
        return {
            **_DBT_ENV,
            "SPARK_INCREMENTAL_TARGET": self.target,
            "SPARK_INCREMENTAL_THRIFT_HOST": self.host,
            "SPARK_INCREMENTAL_THRIFT_PORT": str(self.port),
            "SPARK_INCREMENTAL_SCHEMA": self.schema,
            **{env: None if merged.get(var) is None else env_text(merged[var])
               for var, env in self.env_vars.items()},
        }

    def merged_vars(self, vars: Mapping[str, Any] | None = None) -> dict[str, Any]:
        return {**self.default_vars, **(vars or {})}

    def cli_vars(self, vars: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """What goes to --vars: the merged vars without those passed by environment."""
        return {k: v for k, v in self.merged_vars(vars).items() if k not in self.env_vars}

    def cli_args(self, args: tuple[str, ...], vars: Mapping[str, Any] | None) -> list[str]:
        return [
            *args,
            "--project-dir", str(self.project_dir),
            "--profiles-dir", str(self.project_dir),
            "--target", self.target,
            "--vars", json.dumps(self.cli_vars(vars), default=str, sort_keys=True),
        ]

    def run(
        self,
        *args: str,
        vars: Mapping[str, Any] | None = None,
        expect_success: bool | None = True,
        env: Mapping[str, str | None] | None = None,
        on_line: Callable[[str], None] | None = None,
    ) -> DbtResult:
        """``dbt <args>`` in this process; every event's message is captured. ``env``
        adds to (None: removes from) the environment of this call. ``on_line`` sees each
        non-debug line as it is logged (a test in another thread can act at a point of
        the run)."""
        from dbt import selected_resources
        from dbt.cli.main import dbtRunner
        from dbt_common.tests import enable_test_caching

        # dbt's own test fixtures do this: the Jinja syntax trees of the macro files, the
        # same text in every test project, are kept for the process, so a full parse (one
        # per test project) does not parse them again: 3.0 s -> 1.2 s on average in CI's
        # 4.3 step on 2026-12-02. dbt finds the same nodes either way; a changed file is a
        # new text, parsed afresh.
        enable_test_caching()

        lines: list[str] = []
        debug_lines: list[str] = []

        def callback(event: Any) -> None:
            info = event.info
            msg = info.msg
            if not msg:
                return
            (debug_lines if info.level == "debug" else lines).append(msg)
            if on_line is not None and info.level != "debug":
                on_line(msg)

        cli = self.cli_args(args, vars)
        started = time.monotonic()
        # dbt keeps the selection in a module global that only a selector sets: a new
        # process starts with none (`dbt retry` sets none), and so does each call here
        selected_resources.set_selected_resources(set())
        with _patched_env({**self.env(vars), **(env or {})}), contextlib.chdir(self.project_dir):
            res = dbtRunner(callbacks=[callback]).invoke(cli)
        STATS.add(time.monotonic() - started, debug_lines, lines)

        statuses: dict[str, str] = {}
        for r in getattr(res.result, "results", None) or []:
            node = getattr(r, "node", None)
            name = getattr(node, "name", None) or getattr(r, "unique_id", "?")
            statuses[name] = _status(r.status)
        result = DbtResult(
            success=bool(res.success),
            lines=lines,
            statuses=statuses,
            exception=res.exception,
            debug_lines=debug_lines,
            result=res.result,
        )
        if expect_success is not None and result.success != expect_success:
            want = "succeed" if expect_success else "fail"
            raise AssertionError(
                f"expected `dbt {' '.join(args)}` to {want}; statuses={statuses}; "
                f"exception={res.exception!r}\n--- last 60 lines ---\n{result.tail(60)}"
            )
        return result

    def dbt_executable(self) -> str:
        exe = Path(sys.executable).parent / "dbt"
        return str(exe) if exe.exists() else shutil.which("dbt") or "dbt"

    def run_subprocess(
        self,
        *args: str,
        vars: Mapping[str, Any] | None = None,
        env: Mapping[str, str] | None = None,
    ) -> subprocess.Popen:
        """``dbt <args>`` as a child process (for kill tests).

        stdout+stderr go to ``proc.output_path`` (a file under logs/); the process is
        its own process-group leader, so ``os.killpg(proc.pid, sig)`` reaches it all.
        """
        self._subprocess_count += 1
        out = self.project_dir / "logs" / f"subprocess-{self._subprocess_count}.out"
        out.parent.mkdir(parents=True, exist_ok=True)
        full_env = {**os.environ, **self.env(vars), **(env or {})}
        full_env = {k: v for k, v in full_env.items() if v is not None}
        with open(out, "wb") as fh:
            proc = subprocess.Popen(
                [self.dbt_executable(), *self.cli_args(args, vars)],
                cwd=self.project_dir,
                env=full_env,
                stdin=subprocess.DEVNULL,
                stdout=fh,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        proc.output_path = out  # type: ignore[attr-defined]
        return proc

    def subprocess_output(self, proc: subprocess.Popen) -> str:
        return Path(proc.output_path).read_text(errors="replace")  # type: ignore[attr-defined]

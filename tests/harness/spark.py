"""Start and stop a local Spark Thrift server for the tests (no mocks: a real JVM).

One server per metastore: embedded Derby allows a single process, so every server gets
its own warehouse / metastore / derby folders under ``workdir``.
"""

from __future__ import annotations

import atexit
import ctypes
import importlib.util
import os
import re
import shutil
import signal
import socket
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

HOST = "127.0.0.1"
SPARK_HOME_ENV = "SPARK_INCREMENTAL_SPARK_HOME"
JAVA_MISSING = "Java 17 is required: no `java` on PATH; apt-get install openjdk-17-jre-headless"


class SparkServerError(RuntimeError):
    """The Thrift server did not start, or died."""


def find_spark_home() -> Path:
    """``$SPARK_INCREMENTAL_SPARK_HOME`` if set, else the installed pyspark package dir."""
    env = os.environ.get(SPARK_HOME_ENV)
    if env:
        home = Path(env).expanduser().resolve()
        if not (home / "bin" / "spark-submit").exists():
            raise SparkServerError(f"{SPARK_HOME_ENV}={env}: no bin/spark-submit there")
        return home
    spec = importlib.util.find_spec("pyspark")
    if spec is None or not spec.submodule_search_locations:
        raise SparkServerError(f"pyspark is not installed and {SPARK_HOME_ENV} is not set")
    return Path(next(iter(spec.submodule_search_locations))).resolve()


def spark_home_version(spark_home: Path) -> str:
    """Spark version read from the spark-core jar name (no JVM needed); '' when unknown."""
    for jar in sorted((spark_home / "jars").glob("spark-core_*.jar")):
        m = re.match(r"spark-core_[\d.]+-(.+)\.jar$", jar.name)
        if m:
            return m.group(1)
    return ""


def check_java() -> str:
    """Raise one clear line when java is missing; return the path of java."""
    java = shutil.which("java")
    if java is None:
        raise SparkServerError(JAVA_MISSING)
    return java


def _die_with_parent() -> None:
    """In the child before exec: get SIGTERM when the process that started us dies
    (Linux prctl PR_SET_PDEATHSIG), so a killed pytest leaves no orphan JVM behind."""
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM, 0, 0, 0)
    except Exception:
        pass


_RUNNING: "set[ThriftServer]" = set()


@atexit.register
def _stop_all_at_exit() -> None:
    for server in list(_RUNNING):
        try:
            server.stop(grace_s=10)
        except Exception:
            pass


def free_port() -> int:
    """A TCP port that is free on 127.0.0.1 right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


def _tcp_open(port: int, timeout: float = 1.0) -> bool:
    try:
        with socket.create_connection((HOST, port), timeout=timeout):
            return True
    except OSError:
        return False


def _tail(path: Path, n: int = 40) -> str:
    try:
        lines = path.read_text(errors="replace").splitlines()
    except OSError:
        return f"(no log at {path})"
    return "\n".join(lines[-n:])


@dataclass(eq=False)
class ThriftServer:
    workdir: Path
    spark_home: Path
    port: int
    ui_port: int
    host: str = HOST
    timeout_s: float = 120.0
    process: subprocess.Popen | None = field(default=None, repr=False)
    spark_version: str = ""
    started_in_s: float = 0.0
    # extra Spark confs (e.g. spark.sql.hive.thriftServer.singleSession=true: every
    # connection shares one SparkSession, as dbt's threads do on such a server)
    conf: dict[str, str] = field(default_factory=dict)

    # ---------------------------------------------------------------- paths
    @property
    def log_path(self) -> Path:
        return self.workdir / "thrift.log"

    @property
    def warehouse_dir(self) -> Path:
        return self.workdir / "warehouse"

    @property
    def metastore_dir(self) -> Path:
        return self.workdir / "metastore_db"

    @property
    def derby_dir(self) -> Path:
        return self.workdir / "derby"

    @property
    def ui_url(self) -> str:
        """Base of Spark's REST API, e.g. ``f"{server.ui_url}/api/v1/applications"``."""
        return f"http://{self.host}:{self.ui_port}"

    # ---------------------------------------------------------------- lifecycle
    @classmethod
    def start(
        cls, workdir: Path, spark_home: Path | None = None, timeout_s: float = 120,
        conf: dict[str, str] | None = None,
    ) -> "ThriftServer":
        check_java()
        workdir = Path(workdir).resolve()
        workdir.mkdir(parents=True, exist_ok=True)
        server = cls(
            workdir=workdir,
            spark_home=Path(spark_home).resolve() if spark_home else find_spark_home(),
            port=free_port(),
            ui_port=free_port(),
            timeout_s=timeout_s,
            conf=dict(conf or {}),
        )
        # a port free when picked can be taken before Spark binds it (another server's
        # driver or block manager picks its ports at random too): pick new ones and retry
        for attempt in range(3):
            try:
                server._launch()
                return server
            except SparkServerError as exc:
                launch_log = server.log_path.read_text(errors="replace").rsplit("===== starting:", 1)[-1]
                if attempt == 2 or "java.net.BindException" not in launch_log:
                    raise
                server.port, server.ui_port = free_port(), free_port()
        raise AssertionError("unreachable")

    def command(self) -> list[str]:
        sh = self.spark_home
        return [
            str(sh / "bin" / "spark-submit"),
            *self.master_args(),
            "--name", f"spark_incremental tests ({self.port})",
            "--conf", f"spark.sql.warehouse.dir={self.warehouse_dir}",
            *self.metastore_args(),
            "--conf", "spark.sql.session.timeZone=UTC",
            "--conf", "spark.sql.shuffle.partitions=4",
            # The tests' own long-lived session must see tables that dbt rewrote in
            # another session: no cached file listings.
            "--conf", "spark.sql.filesourceTableRelationCacheSize=0",
            "--conf", "spark.ui.enabled=true",
            "--conf", f"spark.ui.port={self.ui_port}",
            # Keep every execution in the UI (tests read their metrics through its REST
            # API): past the default 1,000 Spark deletes old ones, and a test server in CI
            # was left with an execution listed without its plan graph, which makes Spark
            # answer the whole execution list 404.
            "--conf", "spark.sql.ui.retainedExecutions=100000",
            "--conf", f"spark.driver.host={self.host}",
            "--conf", f"spark.driver.bindAddress={self.host}",
            *[arg for key, value in self.conf.items() for arg in ("--conf", f"{key}={value}")],
            "--class", "org.apache.spark.sql.hive.thriftserver.HiveThriftServer2",
            "--hiveconf", f"hive.server2.thrift.port={self.port}",
            "--hiveconf", f"hive.server2.thrift.bind.host={self.host}",
            "spark-internal",
        ]

    def master_args(self) -> list[str]:
        """Where the work runs: here, the driver's own two threads (the cluster topology,
        tests/harness/cluster.py, sends it to a standalone master instead)."""
        return ["--master", "local[2]", "--driver-memory", "2g"]

    def metastore_args(self) -> list[str]:
        """The catalog: an embedded Derby database of this server's own."""
        return [
            "--conf", f"spark.driver.extraJavaOptions=-Dderby.system.home={self.derby_dir}"
                      " -Dderby.storage.indexStats.auto=false",
            "--conf", "spark.hadoop.javax.jdo.option.ConnectionURL="
                      f"jdbc:derby:;databaseName={self.metastore_dir};create=true",
            # Embedded Derby intermittently fails partition filters on DATE partition
            # columns; on such an error Spark lists the partitions and prunes itself.
            "--conf", "spark.sql.hive.metastorePartitionPruningFallbackOnException=true",
        ]

    def _launch(self) -> None:
        for d in (self.warehouse_dir, self.derby_dir):
            d.mkdir(parents=True, exist_ok=True)
        env = dict(os.environ)
        env["SPARK_HOME"] = str(self.spark_home)
        env["SPARK_LOCAL_IP"] = self.host
        env.pop("SPARK_CONF_DIR", None)
        env.pop("PYSPARK_SUBMIT_ARGS", None)
        t0 = time.monotonic()
        with open(self.log_path, "ab") as log:
            log.write(f"\n===== starting: {' '.join(self.command())}\n".encode())
            log.flush()
            self.process = subprocess.Popen(
                self.command(),
                cwd=self.workdir,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # own process group: stop() reaches every child
                preexec_fn=_die_with_parent,
            )
        _RUNNING.add(self)
        try:
            self.wait_ready(self.timeout_s)
        except BaseException:
            self.stop()
            raise
        self.started_in_s = time.monotonic() - t0
        self._read_ui_port()

    def _read_ui_port(self) -> None:
        """Spark moves to the next port when ours was taken meanwhile: believe its log."""
        try:
            text = self.log_path.read_text(errors="replace")
        except OSError:
            return
        found = re.findall(r"Successfully started service '?SparkUI'? on port (\d+)", text)
        if found:
            self.ui_port = int(found[-1])

    def _failure(self, why: str) -> SparkServerError:
        return SparkServerError(
            f"Spark Thrift server on {self.host}:{self.port} {why}; last 40 lines of "
            f"{self.log_path}:\n{_tail(self.log_path)}"
        )

    def wait_ready(self, timeout_s: float | None = None) -> None:
        """Poll until the port accepts TCP and ``select 1`` works through PyHive."""
        from .sql import SparkSql  # local import: sql.py imports nothing from here

        deadline = time.monotonic() + (timeout_s if timeout_s is not None else self.timeout_s)
        last_error: BaseException | None = None
        while True:
            if self.process is not None and self.process.poll() is not None:
                raise self._failure(f"exited early with code {self.process.returncode}")
            if time.monotonic() > deadline:
                raise self._failure(f"not ready after {timeout_s or self.timeout_s:.0f} s "
                                    f"(last error: {last_error!r})")
            if _tcp_open(self.port):
                try:
                    with SparkSql(self.host, self.port) as sql:
                        if sql.scalar("select 1") == 1:
                            self.spark_version = str(sql.scalar("select version()")).split()[0]
                            return
                except Exception as exc:  # server still booting: keep polling
                    last_error = exc
            time.sleep(0.5)

    def is_alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def _signal(self, sig: int) -> None:
        assert self.process is not None
        try:
            os.killpg(self.process.pid, sig)  # the group we created in _launch
        except ProcessLookupError:
            pass

    def stop(self, grace_s: float = 20.0) -> None:
        """SIGTERM, then SIGKILL after ``grace_s`` seconds."""
        _RUNNING.discard(self)
        if self.process is None:
            return
        if self.process.poll() is None:
            self._signal(signal.SIGTERM)
            try:
                self.process.wait(grace_s)
            except subprocess.TimeoutExpired:
                self._signal(signal.SIGKILL)
                self.process.wait(30)
        self._wait_port_closed()

    def kill(self) -> None:
        """SIGKILL at once (the fault suite's crash)."""
        _RUNNING.discard(self)
        if self.process is None:
            return
        if self.process.poll() is None:
            self._signal(signal.SIGKILL)
            self.process.wait(30)
        self._wait_port_closed()

    def _wait_port_closed(self, timeout_s: float = 10.0) -> None:
        deadline = time.monotonic() + timeout_s
        while _tcp_open(self.port, timeout=0.2) and time.monotonic() < deadline:
            time.sleep(0.2)

    def restart(self, kill: bool = False) -> "ThriftServer":
        """Stop (or kill) and start again with the same folders and ports."""
        if kill:
            self.kill()
        else:
            self.stop()
        self._launch()
        return self

    def __enter__(self) -> "ThriftServer":
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _main(argv: list[str] | None = None) -> int:
    """``python -m tests.harness.spark run [--workdir DIR] -- CMD ...``: start a throw-away
    Thrift server, run CMD with SPARK_INCREMENTAL_THRIFT_HOST/PORT set, stop the server."""
    import argparse
    import sys
    import tempfile

    ap = argparse.ArgumentParser(prog="python -m tests.harness.spark")
    sub = ap.add_subparsers(dest="cmd", required=True)
    run = sub.add_parser("run", help="run a command against a fresh Thrift server")
    run.add_argument("--workdir", type=Path, default=None)
    run.add_argument("command", nargs=argparse.REMAINDER)
    args = ap.parse_args(argv)
    command = list(args.command)
    if command and command[0] == "--":
        command = command[1:]
    if not command:
        ap.error("run: no command given")
    try:
        check_java()
    except SparkServerError as exc:
        print(exc, file=sys.stderr)
        return 3
    with tempfile.TemporaryDirectory(prefix="spark-incremental-") as tmp:
        workdir = args.workdir or Path(tmp)
        server = ThriftServer.start(workdir)
        print(f"spark thrift server {server.spark_version} on {server.host}:{server.port} "
              f"(started in {server.started_in_s:.1f} s)", file=sys.stderr, flush=True)
        try:
            env = {**os.environ,
                   "SPARK_INCREMENTAL_THRIFT_HOST": server.host,
                   "SPARK_INCREMENTAL_THRIFT_PORT": str(server.port)}
            return subprocess.call(command, env=env)
        finally:
            server.stop()


if __name__ == "__main__":
    raise SystemExit(_main())

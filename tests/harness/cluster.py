"""The cluster topology: a Spark standalone cluster and a Hive metastore in PostgreSQL.

``Cluster.start(workdir)`` starts, each in its own process group that dies with us:

- a throwaway PostgreSQL cluster (``initdb`` in a temp folder, run as the ``postgres``
  user when we are root: initdb refuses root), on 127.0.0.1 and a free port, holding the
  Hive metastore; its schema is made once, before any Spark uses it, by DataNucleus'
  SchemaTool over the metastore's own ``package.jdo`` (see ``Postgres.init_metastore``);
- a standalone master and two workers from the Spark install's own ``bin/spark-class``;
- the Thrift server (``ClusterThriftServer``) with ``--master spark://...``: every file
  is written by executors in other JVMs, through Spark's commit protocol.

``Cluster.stop()`` stops them in the reverse order. ``python -m tests.harness.cluster
check`` prints what is missing for this topology (exit 3) or nothing.
"""

from __future__ import annotations

import json
import os
import pwd
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .spark import (
    HOST,
    SparkServerError,
    ThriftServer,
    _RUNNING,
    _die_with_parent,
    _tail,
    _tcp_open,
    check_java,
    find_spark_home,
    free_port,
)
from .sql import Row, SparkSql

TOPOLOGY_ENV = "SPARK_INCREMENTAL_TOPOLOGY"
PG_BIN_DIRS = ("/usr/lib/postgresql/15/bin", "/usr/lib/postgresql/16/bin", "/usr/lib/postgresql/17/bin")
JDBC_JAR = Path("/usr/share/java/postgresql.jar")
MISSING = ("the cluster topology needs PostgreSQL (initdb, postgres) and its JDBC jar {jar}: "
           "make cluster-deps (apt-get install postgresql libpostgresql-jdbc-java)")
# the metastore database's name and owner inside the throwaway PostgreSQL cluster
DATABASE = "metastore"
DB_USER = "hive"
# What the Hive 2.3 metastore client (ObjectStore) sets for DataNucleus, and what
# SchemaTool must use too so that it makes the same table and column names.
DATANUCLEUS = {
    "datanucleus.identifierFactory": "datanucleus1",
    "datanucleus.rdbms.useLegacyNativeValueStrategy": "true",
    "datanucleus.storeManagerType": "rdbms",
}


def pg_bin_dir() -> Path | None:
    for d in PG_BIN_DIRS:
        if (Path(d) / "initdb").exists() and (Path(d) / "postgres").exists():
            return Path(d)
    initdb = shutil.which("initdb")
    return Path(initdb).resolve().parent if initdb else None


def check_cluster_deps() -> None:
    """One clear line when the topology cannot start here."""
    check_java()
    if pg_bin_dir() is None or not JDBC_JAR.exists():
        raise SparkServerError(MISSING.format(jar=JDBC_JAR))
    if os.geteuid() == 0:
        try:
            pwd.getpwnam("postgres")
        except KeyError as exc:
            raise SparkServerError("as root, the cluster topology runs PostgreSQL as the "
                                   "`postgres` user, and there is none") from exc


def _popen(cmd: list[str], log: Path, env: dict[str, str] | None = None,
           cwd: Path | None = None, user: str | None = None) -> subprocess.Popen:
    with open(log, "ab") as out:
        out.write(f"\n===== starting: {' '.join(cmd)}\n".encode())
        out.flush()
        kwargs: dict = {}
        if user is not None:
            kwargs = {"user": user, "group": user, "extra_groups": []}
        return subprocess.Popen(
            cmd, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # own process group: stop() reaches every child
            preexec_fn=_die_with_parent, **kwargs,
        )


def _stop_group(process: subprocess.Popen | None, sig: int = signal.SIGTERM,
                grace_s: float = 20.0) -> None:
    if process is None or process.poll() is not None:
        return
    for s in (sig, signal.SIGKILL):
        try:
            os.killpg(process.pid, s)
        except ProcessLookupError:
            return
        try:
            process.wait(grace_s)
            return
        except subprocess.TimeoutExpired:
            continue
    process.wait(30)


# ----------------------------------------------------------------------------- PostgreSQL
@dataclass(eq=False)
class Postgres:
    workdir: Path
    port: int = 0
    process: subprocess.Popen | None = field(default=None, repr=False)

    @property
    def log_path(self) -> Path:
        return self.workdir / "postgres.log"

    data_root: Path | None = None  # the cluster's own folder, outside workdir (see start)

    @property
    def data_dir(self) -> Path:
        assert self.data_root is not None
        return self.data_root / "data"

    @property
    def jdbc_url(self) -> str:
        return f"jdbc:postgresql://{HOST}:{self.port}/{DATABASE}"

    @staticmethod
    def _user() -> str | None:
        return "postgres" if os.geteuid() == 0 else None

    def start(self, timeout_s: float = 60) -> "Postgres":
        bin_dir = pg_bin_dir()
        assert bin_dir is not None
        self.workdir.mkdir(parents=True, exist_ok=True)
        user = self._user()
        # The data lives in a folder of its own under the system temp dir, which the
        # postgres user can reach (pytest's temp folders are root's, mode 0700).
        self.data_root = Path(tempfile.mkdtemp(prefix="spark-incremental-pg-"))
        if user is not None:
            shutil.chown(self.data_root, user, user)
        init = subprocess.run(
            [str(bin_dir / "initdb"), "-D", str(self.data_dir), "-A", "trust", "-U", DB_USER,
             "-E", "UTF8", "--no-sync"],
            capture_output=True, text=True, cwd=self.data_root,
            **({"user": user, "group": user, "extra_groups": []} if user else {}),
        )
        if init.returncode != 0:
            self.stop()
            raise SparkServerError(f"initdb failed ({init.returncode}): {init.stderr.strip()[-2000:]}")
        self.port = free_port()
        self.process = _popen(
            [str(bin_dir / "postgres"), "-D", str(self.data_dir), "-p", str(self.port),
             "-k", str(self.data_root), "-c", f"listen_addresses={HOST}",
             "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off",
             "-c", "max_connections=200"],
            self.log_path, cwd=self.data_root, user=user,
        )
        deadline = time.monotonic() + timeout_s
        while not self._psql_ok("select 1"):
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise SparkServerError(f"PostgreSQL did not start; {self.log_path}:\n"
                                       f"{_tail(self.log_path)}")
            time.sleep(0.3)
        self.psql(f"create database {DATABASE}", database="postgres")
        return self

    def psql(self, sql: str, database: str = DATABASE) -> str:
        bin_dir = pg_bin_dir()
        assert bin_dir is not None
        done = subprocess.run(
            [str(bin_dir / "psql"), "-h", HOST, "-p", str(self.port), "-U", DB_USER,
             "-d", database, "-v", "ON_ERROR_STOP=1", "-At", "-c", sql],
            capture_output=True, text=True, env={**os.environ, "PGCONNECT_TIMEOUT": "5"},
        )
        if done.returncode != 0:
            raise SparkServerError(f"psql {sql!r}: {done.stderr.strip()}")
        return done.stdout

    def _psql_ok(self, sql: str) -> bool:
        try:
            self.psql(sql, database="postgres")
            return True
        except SparkServerError:
            return False

    def init_metastore(self, spark_home: Path) -> None:
        """Create every metastore table before any Spark uses it.

        Left to ``datanucleus.schema.autoCreateAll``, DataNucleus makes each table the
        first time a statement needs it, on a second connection, while the statement's
        transaction is open on the first. Seen on PostgreSQL 15 at the first ``create
        table``: the first connection had inserted into "TBLS" and sat idle in
        transaction; the second waited for a ShareRowExclusiveLock on "TBLS" to add
        "TBL_PRIVS"' foreign key to it; the first waited for the second, for ever (a
        wait PostgreSQL cannot see as a deadlock). SchemaTool makes every table at once
        from the metastore jar's ``package.jdo``, with the DataNucleus settings the
        metastore itself uses, so the names are the ones it expects; the Thrift server
        then runs with autoCreateAll off.
        """
        jars = spark_home / "jars"
        metastore_jar = next(iter(sorted(jars.glob("hive-metastore-*.jar"))), None)
        if metastore_jar is None:
            raise SparkServerError(f"no hive-metastore jar under {jars}")
        jdo = self.workdir / "package.jdo"
        with zipfile.ZipFile(metastore_jar) as z:
            jdo.write_bytes(z.read("package.jdo"))
        props = self.workdir / "datanucleus.properties"
        props.write_text("\n".join(f"{k}={v}" for k, v in {
            "javax.jdo.PersistenceManagerFactoryClass":
                "org.datanucleus.api.jdo.JDOPersistenceManagerFactory",
            "datanucleus.ConnectionDriverName": "org.postgresql.Driver",
            "datanucleus.ConnectionURL": self.jdbc_url,
            "datanucleus.ConnectionUserName": DB_USER,
            "datanucleus.ConnectionPassword": "",
            "datanucleus.schema.autoCreateAll": "true",
            **DATANUCLEUS,
        }.items()) + "\n")
        log = self.workdir / "schematool.log"
        with open(log, "wb") as out:
            done = subprocess.run(
                [check_java(), "-cp", f"{jars}/*:{JDBC_JAR}",
                 "org.datanucleus.store.schema.SchemaTool", "-create", "-api", "JDO",
                 "-props", str(props), str(jdo)],
                stdout=out, stderr=subprocess.STDOUT, cwd=self.workdir, timeout=300,
            )
        if done.returncode != 0 or "TBLS" not in self.psql("select tablename from pg_tables"):
            raise SparkServerError(f"the metastore schema was not made; {log}:\n{_tail(log)}")

    def hive_conf(self) -> dict[str, str]:
        """Spark confs pointing the built-in Hive client at this database."""
        return {
            "spark.hadoop.javax.jdo.option.ConnectionURL": self.jdbc_url,
            "spark.hadoop.javax.jdo.option.ConnectionDriverName": "org.postgresql.Driver",
            "spark.hadoop.javax.jdo.option.ConnectionUserName": DB_USER,
            "spark.hadoop.javax.jdo.option.ConnectionPassword": "",
            # the schema exists (init_metastore); it must never be made lazily
            "spark.hadoop.datanucleus.schema.autoCreateAll": "false",
            "spark.hadoop.hive.metastore.schema.verification": "false",
            **{f"spark.hadoop.{k}": v for k, v in DATANUCLEUS.items()},
            # Needed here as on Derby: the metastore's direct SQL filters a DATE partition
            # column with a cast of the stored values to date, and PostgreSQL evaluated it
            # on other tables' partition values too (the manifest log's text batch ids):
            # "invalid input syntax for type date"; the ORM path it falls back to filters
            # string keys only. Without this, test_write_layer failed on DATE partitions.
            "spark.sql.hive.metastorePartitionPruningFallbackOnException": "true",
        }

    def stop(self) -> None:
        # SIGINT: PostgreSQL's fast shutdown (SIGTERM waits for clients to leave)
        _stop_group(self.process, signal.SIGINT)
        if self.data_root is not None:
            shutil.rmtree(self.data_root, ignore_errors=True)


# ----------------------------------------------------------------------------- Spark
@dataclass(eq=False)
class Standalone:
    """A standalone master and ``workers`` workers, all on 127.0.0.1."""

    workdir: Path
    spark_home: Path
    workers: int = 2
    # cores a worker offers: the Thrift server takes one on each (spark.cores.max), which
    # leaves one on each for a second application (the loader test's spark-submit job)
    worker_cores: int = 2
    worker_memory: str = "2g"
    port: int = 0
    ui_port: int = 0
    processes: list[subprocess.Popen] = field(default_factory=list, repr=False)

    @property
    def url(self) -> str:
        return f"spark://{HOST}:{self.port}"

    def _env(self) -> dict[str, str]:
        env = dict(os.environ)
        env.pop("SPARK_CONF_DIR", None)
        env.pop("PYSPARK_SUBMIT_ARGS", None)
        env.update({
            "SPARK_HOME": str(self.spark_home),
            "SPARK_LOCAL_IP": HOST,
            "SPARK_DAEMON_MEMORY": "256m",
            "SPARK_NO_DAEMONIZE": "1",
        })
        return env

    def start(self, timeout_s: float = 180) -> "Standalone":
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.port, self.ui_port = free_port(), free_port()
        spark_class = str(self.spark_home / "bin" / "spark-class")
        self.processes.append(_popen(
            [spark_class, "org.apache.spark.deploy.master.Master", "--host", HOST,
             "--port", str(self.port), "--webui-port", str(self.ui_port)],
            self.workdir / "master.log", env=self._env(), cwd=self.workdir))
        for i in range(self.workers):
            work = self.workdir / f"worker{i}"
            work.mkdir(exist_ok=True)
            self.processes.append(_popen(
                [spark_class, "org.apache.spark.deploy.worker.Worker", "--host", HOST,
                 "--webui-port", str(free_port()), "--cores", str(self.worker_cores),
                 "--memory", self.worker_memory, "--work-dir", str(work), self.url],
                self.workdir / f"worker{i}.log", env=self._env(), cwd=self.workdir))
        deadline = time.monotonic() + timeout_s
        while self.alive_workers() < self.workers:
            dead = [p for p in self.processes if p.poll() is not None]
            if dead or time.monotonic() > deadline:
                logs = "\n".join(f"--- {p.name}\n{_tail(p, 15)}"
                                 for p in sorted(self.workdir.glob("*.log")))
                self.stop()
                raise SparkServerError(f"standalone cluster at {self.url}: "
                                       f"{self.alive_workers()} of {self.workers} workers up\n{logs}")
            time.sleep(1)
        return self

    def state(self) -> dict:
        """The master's JSON status (workers, applications)."""
        try:
            with urllib.request.urlopen(f"http://{HOST}:{self.ui_port}/json/", timeout=5) as r:
                return json.loads(r.read())
        except Exception:
            return {}

    def alive_workers(self) -> int:
        return sum(1 for w in self.state().get("workers", []) if w.get("state") == "ALIVE")

    def stop(self) -> None:
        for p in reversed(self.processes):  # workers first (they kill their executors)
            _stop_group(p)
        self.processes.clear()


@dataclass(eq=False)
class ClusterThriftServer(ThriftServer):
    """The Thrift server as a driver of the standalone cluster, its catalog in PostgreSQL."""

    master: str = ""
    hive_conf: dict[str, str] = field(default_factory=dict)

    def master_args(self) -> list[str]:
        return [
            "--master", self.master,
            "--driver-memory", "1g",
            "--driver-class-path", str(JDBC_JAR),
            "--conf", "spark.cores.max=2",
            "--conf", "spark.executor.cores=1",
            "--conf", "spark.executor.memory=768m",
        ]

    def metastore_args(self) -> list[str]:
        return [arg for k, v in self.hive_conf.items() for arg in ("--conf", f"{k}={v}")]

    def wait_ready(self, timeout_s: float | None = None) -> None:
        """Ready when ``select 1`` works and both executors have registered."""
        super().wait_ready(timeout_s)
        deadline = time.monotonic() + (timeout_s or self.timeout_s)
        while self._executors() < 2:
            if time.monotonic() > deadline:
                raise self._failure("got no two executors from the standalone master")
            time.sleep(1)

    def _executors(self) -> int:
        self._read_ui_port()
        try:
            url = f"{self.ui_url}/api/v1/applications"
            with urllib.request.urlopen(url, timeout=5) as r:
                app = json.loads(r.read())[0]["id"]
            with urllib.request.urlopen(f"{url}/{app}/executors", timeout=5) as r:
                return sum(1 for e in json.loads(r.read()) if e.get("id") != "driver")
        except Exception:
            return 0


@dataclass(eq=False)
class Cluster:
    workdir: Path
    postgres: Postgres
    standalone: Standalone
    server: ClusterThriftServer
    started_in_s: float = 0.0

    @classmethod
    def start(cls, workdir: Path, spark_home: Path | None = None,
              timeout_s: float = 300, conf: dict[str, str] | None = None) -> "Cluster":
        check_cluster_deps()
        t0 = time.monotonic()
        workdir = Path(workdir).resolve()
        home = Path(spark_home).resolve() if spark_home else find_spark_home()
        postgres = Postgres(workdir / "postgres").start()
        standalone: Standalone | None = None
        try:
            postgres.init_metastore(home)
            standalone = Standalone(workdir / "standalone", home).start(timeout_s)
            server = ClusterThriftServer(
                workdir=workdir / "thrift", spark_home=home, port=free_port(),
                ui_port=free_port(), timeout_s=timeout_s, master=standalone.url,
                hive_conf=postgres.hive_conf(), conf=dict(conf or {}))
            server.workdir.mkdir(parents=True, exist_ok=True)
            server._launch()
        except BaseException:
            if standalone is not None:
                standalone.stop()
            postgres.stop()
            raise
        cluster = cls(workdir, postgres, standalone, server)
        cluster.started_in_s = time.monotonic() - t0
        server.started_in_s = cluster.started_in_s
        _CLUSTERS.add(cluster)
        return cluster

    def submit_args(self, name: str) -> list[str]:
        """``spark-submit`` arguments for another application on this cluster and catalog."""
        return [
            str(self.server.spark_home / "bin" / "spark-submit"),
            "--master", self.standalone.url, "--name", name,
            "--driver-class-path", str(JDBC_JAR),
            "--conf", "spark.cores.max=2", "--conf", "spark.executor.cores=1",
            "--conf", "spark.executor.memory=768m", "--driver-memory", "1g",
            "--conf", f"spark.sql.warehouse.dir={self.server.warehouse_dir}",
            "--conf", "spark.sql.catalogImplementation=hive",
            "--conf", "spark.sql.session.timeZone=UTC",
            "--conf", f"spark.driver.host={HOST}", "--conf", f"spark.driver.bindAddress={HOST}",
            "--conf", "spark.ui.enabled=false",
            *[arg for k, v in self.postgres.hive_conf().items() for arg in ("--conf", f"{k}={v}")],
        ]

    def stop(self) -> None:
        _CLUSTERS.discard(self)
        self.server.stop()
        self.standalone.stop()
        self.postgres.stop()


_CLUSTERS: "set[Cluster]" = set()


class SubmittedSql(SparkSql):
    """``SparkSql`` over another Spark application on the cluster: a ``spark-submit`` job
    (tests/harness/loader_app.py) with its own driver and the cluster's metastore, which
    runs each statement when it is sent. Rows come back as text."""

    def __init__(self, cluster: Cluster, name: str = "spark_incremental loader") -> None:
        super().__init__(host=HOST, port=0)
        self.log_path = cluster.workdir / f"{name.replace(' ', '_')}.log"
        env = {**os.environ, "PYSPARK_PYTHON": sys.executable,
               "PYSPARK_DRIVER_PYTHON": sys.executable, "SPARK_LOCAL_IP": HOST,
               # the pyspark next to the cluster's jars, not another one of the venv
               "PYTHONPATH": os.pathsep.join([str(cluster.server.spark_home.parent),
                                              os.environ.get("PYTHONPATH", "")])}
        env.pop("SPARK_CONF_DIR", None)
        env.pop("PYSPARK_SUBMIT_ARGS", None)
        # the statements go through a named pipe: spark-submit gives a Python application
        # a stdin of its own, not ours (its stdout is passed on)
        fifo = cluster.workdir / f"{name.replace(' ', '_')}.sql"
        fifo.unlink(missing_ok=True)
        os.mkfifo(fifo)
        with open(self.log_path, "ab") as log:
            self.process = subprocess.Popen(
                [*cluster.submit_args(name), str(Path(__file__).with_name("loader_app.py")),
                 str(fifo)],
                env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=log,
                text=True, start_new_session=True, preexec_fn=_die_with_parent,
            )
        try:
            self.version = self._answer(timeout_s=300)["ready"]
        except BaseException:
            _stop_group(self.process)
            raise
        self.commands = open(fifo, "w")  # the application opens it right after "ready"

    def _answer(self, timeout_s: float = 600) -> dict:
        assert self.process.stdout is not None
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            line = self.process.stdout.readline()
            if not line:
                raise SparkServerError(f"the submitted application ended; {self.log_path}:\n"
                                       f"{_tail(self.log_path)}")
            if line.startswith("ANSWER "):
                return json.loads(line[len("ANSWER "):])
        raise SparkServerError(f"no answer from the submitted application in {timeout_s:.0f} s")

    def _run_once(self, sql: str, fetch: bool) -> tuple[list[str], list[str], list[Row]]:
        self.commands.write(json.dumps({"sql": sql}) + "\n")
        self.commands.flush()
        answer = self._answer()
        if "error" in answer:
            raise SparkServerError(f"{sql[:200]}: {answer['error']}")
        return answer["names"], answer["types"], [tuple(r) for r in answer["rows"]]

    def connect(self) -> Any:
        return self.process

    def close(self) -> None:
        self.commands.close()  # the application's loop ends, it stops its session
        if self.process.poll() is None:
            try:
                self.process.wait(60)
            except subprocess.TimeoutExpired:
                _stop_group(self.process)


def _stop_clusters_at_exit() -> None:
    for cluster in list(_CLUSTERS):
        try:
            cluster.stop()
        except Exception:
            pass


import atexit  # noqa: E402  (registered after spark.py's own handler: runs before it)

atexit.register(_stop_clusters_at_exit)


def _main(argv: list[str] | None = None) -> int:
    """``python -m tests.harness.cluster check``: say in one line what this topology
    misses (exit 3). ``... run [--workdir DIR] -- CMD ...``: start a throwaway cluster, run
    CMD with SPARK_INCREMENTAL_THRIFT_HOST/PORT/UI set (e.g. the benchmark's --port and
    --ui-url), stop the cluster."""
    import argparse

    ap = argparse.ArgumentParser(prog="python -m tests.harness.cluster")
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("check", help="what the cluster topology misses here, in one line")
    run = sub.add_parser("run", help="run a command against a fresh cluster")
    run.add_argument("--workdir", type=Path, default=None)
    run.add_argument("--conf", action="append", default=[], help="KEY=VALUE for the Thrift server")
    run.add_argument("command", nargs=argparse.REMAINDER)
    args = ap.parse_args(argv)
    try:
        check_cluster_deps()
    except SparkServerError as exc:
        print(exc, file=sys.stderr)
        return 3
    if args.cmd == "check":
        return 0
    command = args.command[1:] if args.command[:1] == ["--"] else list(args.command)
    if not command:
        ap.error("run: no command given")
    conf = dict(item.split("=", 1) for item in args.conf)
    with tempfile.TemporaryDirectory(prefix="spark-incremental-cluster-") as tmp:
        cluster = Cluster.start(args.workdir or Path(tmp), conf=conf)
        server = cluster.server
        print(f"spark thrift server {server.spark_version} on {server.host}:{server.port}, "
              f"master {cluster.standalone.url}, metastore {cluster.postgres.jdbc_url} "
              f"(started in {cluster.started_in_s:.1f} s)", file=sys.stderr, flush=True)
        try:
            env = {**os.environ,
                   "SPARK_INCREMENTAL_THRIFT_HOST": server.host,
                   "SPARK_INCREMENTAL_THRIFT_PORT": str(server.port),
                   "SPARK_INCREMENTAL_THRIFT_UI": server.ui_url}
            return subprocess.call(command, env=env)
        finally:
            cluster.stop()


if __name__ == "__main__":
    raise SystemExit(_main())

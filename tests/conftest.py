"""Shared fixtures: one Spark Thrift server per pytest session, one schema per test."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest

from tests.harness.cluster import TOPOLOGY_ENV, Cluster, check_cluster_deps
from tests.harness.dbt import STATS, DbtProject
from tests.harness.spark import (
    SparkServerError,
    ThriftServer,
    check_java,
    find_spark_home,
    spark_home_version,
)
from tests.harness.sql import SparkSql

# dbt must never phone home from the tests (no network, and it is slow to time out).
os.environ.setdefault("DBT_SEND_ANONYMOUS_USAGE_STATS", "false")
os.environ.setdefault("DBT_VERSION_CHECK", "false")

_STARTED: list[ThriftServer] = []
TOPOLOGIES = ("local", "cluster")


def topology() -> str:
    """``$SPARK_INCREMENTAL_TOPOLOGY`` (make test TOPOLOGY=...): local (default: one
    Thrift server, local[2], embedded Derby) or cluster (tests/harness/cluster.py)."""
    value = os.environ.get(TOPOLOGY_ENV, "") or "local"
    if value not in TOPOLOGIES:
        pytest.exit(f"{TOPOLOGY_ENV}={value!r}: allowed are {', '.join(TOPOLOGIES)}", returncode=4)
    return value


def pytest_configure(config: pytest.Config) -> None:
    topology()  # a wrong TOPOLOGY stops the run here, in one line


def pytest_report_header(config: pytest.Config) -> list[str]:
    try:
        home = find_spark_home()
        return [f"spark: {spark_home_version(home) or 'unknown version'} from {home}, "
                f"topology {topology()}"]
    except SparkServerError as exc:
        return [f"spark: {exc}"]


_WORKER_SERVERS: list[str] = []


def _server_line(server: ThriftServer) -> str:
    where = f"on {server.master}" if getattr(server, "master", "") else "local[2]"
    return (f"spark thrift server ({where}): Spark {server.spark_version}, started in "
            f"{server.started_in_s:.1f} s, log {server.log_path}")


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Under pytest-xdist, a worker hands its servers and dbt figures to the controller."""
    output = getattr(session.config, "workeroutput", None)
    if output is not None:
        output["spark_servers"] = [_server_line(server) for server in _STARTED]
        output["dbt_stats"] = [STATS.count, STATS.seconds, STATS.full_parses, STATS.partial_parses]


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: Any) -> None:
    """pytest-xdist's controller: add up what each worker reported."""
    output = getattr(node, "workeroutput", None) or {}
    _WORKER_SERVERS.extend(output.get("spark_servers", []))
    count, seconds, full, partial = output.get("dbt_stats", [0, 0.0, 0, 0])
    STATS.count += count
    STATS.seconds += seconds
    STATS.full_parses += full
    STATS.partial_parses += partial


def pytest_terminal_summary(terminalreporter: Any) -> None:
    for line in [_server_line(server) for server in _STARTED] + _WORKER_SERVERS:
        terminalreporter.write_line(line)
    if STATS.count:
        terminalreporter.write_line(
            f"dbt in-process invocations: {STATS.count}, {STATS.seconds:.0f} s in all "
            f"({STATS.seconds / STATS.count:.1f} s each); full parses {STATS.full_parses}, "
            f"partial parses {STATS.partial_parses}"
        )


def _server_timeout_s() -> float:
    """How long a Spark start may take (SPARK_INCREMENTAL_SERVER_TIMEOUT, seconds): generous,
    since a loaded 2-core machine can take over a minute to boot a JVM."""
    return float(os.environ.get("SPARK_INCREMENTAL_SERVER_TIMEOUT", "300"))


@pytest.fixture(scope="session")
def spark_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster | None]:
    """The cluster topology (a standalone master and two workers, the metastore in
    PostgreSQL, the Thrift server their driver) when TOPOLOGY=cluster, else None."""
    if topology() != "cluster":
        yield None
        return
    try:
        check_cluster_deps()
    except SparkServerError as exc:
        pytest.exit(str(exc), returncode=3)
    timeout_s = _server_timeout_s()
    cluster = Cluster.start(tmp_path_factory.mktemp("cluster"), timeout_s=timeout_s)
    _STARTED.append(cluster.server)
    try:
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture(scope="session")
def spark_server(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ThriftServer]:
    if topology() == "cluster":
        yield request.getfixturevalue("spark_cluster").server
        return
    try:
        check_java()
    except SparkServerError as exc:
        pytest.exit(str(exc), returncode=3)
    timeout_s = _server_timeout_s()
    server = ThriftServer.start(tmp_path_factory.mktemp("spark"), timeout_s=timeout_s)
    _STARTED.append(server)
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def spark_sql(spark_server: ThriftServer) -> Iterator[SparkSql]:
    sql = SparkSql(spark_server.host, spark_server.port)
    try:
        yield sql
    finally:
        sql.close()


@pytest.fixture
def make_project(
    request: pytest.FixtureRequest,
    spark_server: ThriftServer,
    spark_sql: SparkSql,
    tmp_path: Path,
) -> Iterator[Callable[..., DbtProject]]:
    """Factory: ``make_project(**default_vars)`` -> a fresh DbtProject with its own schema.

    Every schema made here is dropped after the test.
    """
    made: list[DbtProject] = []

    def make(**default_vars: Any) -> DbtProject:
        project = DbtProject.create(
            tmp_path / "projects",
            spark_server.host,
            spark_server.port,
            name=request.node.name,
            default_vars=default_vars,
        )
        made.append(project)
        return project

    yield make
    for project in made:
        try:
            spark_sql.drop_schema(project.schema)
        except Exception as exc:  # the server may be down after a fault test
            print(f"could not drop schema {project.schema}: {exc}")


@pytest.fixture
def dbt_project(make_project: Callable[..., DbtProject]) -> DbtProject:
    return make_project()

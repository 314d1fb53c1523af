"""On the cluster topology only (make test TOPOLOGY=cluster; tests/harness/cluster.py):
the Thrift server drives a Spark standalone cluster whose executors write every file, the
catalog is a Hive metastore in PostgreSQL, and a second Spark application (its own
driver, a spark-submit job) writes to the same tables meanwhile.
"""

from __future__ import annotations

from typing import Any, Callable, Iterator

import pytest

from tests.conftest import topology
from tests.harness.cluster import Cluster, SubmittedSql
from tests.harness.dbt import DbtProject
from tests.harness.sql import SparkSql
from tests.test_orchestrator import loader_scenario

pytestmark = pytest.mark.skipif(topology() != "cluster", reason="make test TOPOLOGY=cluster")


@pytest.fixture(scope="module")
def loader_app(spark_cluster: Cluster) -> Iterator[SubmittedSql]:
    app = SubmittedSql(spark_cluster)
    try:
        yield app
    finally:
        app.close()


@pytest.mark.cluster_core
def test_tables_live_in_postgres_and_files_come_from_executors(
    spark_cluster: Cluster, dbt_project: DbtProject, spark_sql: SparkSql
) -> None:
    table = dbt_project.relation("probe")
    spark_sql.create_table(table, {"id": "int"}, [(1,), (2,)])
    names = spark_cluster.postgres.psql('select "TBL_NAME" from "TBLS"').split()
    assert table.split(".")[-1] in names, names
    apps = spark_cluster.standalone.state().get("activeapps", [])
    assert any(app["name"].startswith("spark_incremental tests") for app in apps), apps
    assert spark_cluster.server._executors() == 2
    # the insert's tasks ran in executors: the driver's UI counts their finished tasks
    import json
    import urllib.request

    base = f"{spark_cluster.server.ui_url}/api/v1/applications"
    with urllib.request.urlopen(base, timeout=5) as r:
        app_id = json.loads(r.read())[0]["id"]
    with urllib.request.urlopen(f"{base}/{app_id}/executors", timeout=5) as r:
        executors = [e for e in json.loads(r.read()) if e["id"] != "driver"]
    assert sum(e["totalTasks"] for e in executors) > 0, executors


def test_a_loader_in_another_spark_application_loses_nothing(
    make_project: Callable[..., DbtProject], spark_sql: SparkSql, loader_app: SubmittedSql,
    spark_cluster: Cluster,
) -> None:
    """test_orchestrator's loader scenario, the loader now a spark-submit job of its own
    (own driver and executors, the same PostgreSQL metastore) committing events at three
    points of every `dbt run`: after a final catch-up run every event is in exactly one
    session, and the tables equal one run over all the events."""
    apps: list[dict[str, Any]] = spark_cluster.standalone.state().get("activeapps", [])
    assert len(apps) == 2, [app["name"] for app in apps]  # the Thrift server and the loader
    loader_scenario(make_project, spark_sql, "collector_tstamp", loader_sql=loader_app)

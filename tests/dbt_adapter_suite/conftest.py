"""dbt's own adapter tests for incremental models (dbt-tests-adapter), run against the
session's Thrift server with every `materialized='incremental'` model switched to
`managed_incremental` and `is_incremental()` to `spark_incremental.is_incremental()`:
the two-line change of README "Migrating an incremental model". The package is
installed the way the harness does it (a symlink under dbt_packages, no `dbt deps`)."""

from __future__ import annotations

import re
from typing import Any

import pytest
import yaml

import dbt.tests.fixtures.project as dbt_fixtures
from dbt.tests.fixtures.project import *  # noqa: F401,F403 - dbt's `project` fixture and its parts
from dbt.tests.util import write_file

from tests.harness.dbt import PACKAGE_NAME, REPO_ROOT
from tests.harness.spark import ThriftServer

_MATERIALIZED = re.compile(r"""materialized\s*=\s*(['"])incremental\1""")
_IS_INCREMENTAL = re.compile(r"(?<![\w.])is_incremental\(\)")


def switch_model(sql: str) -> str:
    """The two-line change: the materialization and is_incremental()."""
    if not _MATERIALIZED.search(sql):
        return sql
    sql = _MATERIALIZED.sub("materialized='managed_incremental'", sql)
    return _IS_INCREMENTAL.sub("spark_incremental.is_incremental()", sql)


_DATE_TEXT = re.compile(r"'(\d{4}-\d{2}-\d{2})'")


def switch_sql(sql: str) -> str:
    """A model: the two-line change. A test's own insert into a seed: its date text as a
    date literal (Spark 4's ANSI store assignment refuses a string for a date column;
    dbt-spark skips these classes on a Thrift server for that reason among others)."""
    if sql.lstrip().startswith("--") and "insert into" in sql:
        return _DATE_TEXT.sub(r"date'\1'", sql)
    return switch_model(sql)


def _switched(file_dict: Any) -> Any:
    if not isinstance(file_dict, dict):
        return file_dict
    return {name: switch_sql(value) if name.endswith(".sql") and isinstance(value, str) else _switched(value)
            for name, value in file_dict.items()}


_write_recursively = dbt_fixtures.write_project_files_recursively


def _write_switched(path: Any, file_dict: Any) -> None:
    _write_recursively(path, _switched(file_dict))


dbt_fixtures.write_project_files_recursively = _write_switched


@pytest.fixture(scope="class")
def dbt_profile_target(spark_server: ThriftServer) -> dict[str, Any]:
    return {
        "type": "spark",
        "method": "thrift",
        "host": spark_server.host,
        "port": spark_server.port,
        "user": "dbt",
        "threads": 1,
        "connect_retries": 0,
        "poll_interval": 1,
        "server_side_parameters": {"set:hiveconf:spark.sql.session.timeZone": "UTC"},
    }


@pytest.fixture(scope="class")
def dbt_project_yml(project_root: Any, project_config_update: Any) -> dict[str, Any]:
    """dbt's project file, plus: the package's events pipeline off (no events table here)."""
    project_root.join("dbt_packages").mkdir()
    project_root.join("dbt_packages", PACKAGE_NAME).mksymlinkto(str(REPO_ROOT))
    project_config: dict[str, Any] = {
        "name": "test",
        "profile": "test",
        "flags": {"send_anonymous_usage_stats": False},
    }
    updates = project_config_update
    if isinstance(updates, str):
        updates = yaml.safe_load(updates)
    project_config.update(updates or {})
    project_config.setdefault("vars", {})["spark_incremental__events_enabled"] = False
    write_file(yaml.safe_dump(project_config), project_root, "dbt_project.yml")
    return project_config


@pytest.fixture(scope="class")
def selectors() -> dict[str, Any]:
    """A default selector: a command without --select runs the test's nodes, not the
    package's own models (the manifest log is created by the first model that writes)."""
    return {"selectors": [{
        "name": "test_nodes",
        "default": True,
        "definition": {"union": [
            {"method": "fqn", "value": "*"},
            {"method": "source", "value": "*"},
            {"exclude": [{"method": "package", "value": PACKAGE_NAME}]},
        ]},
    }]}

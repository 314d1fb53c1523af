"""dbt-spark's ``method: session``: Spark runs inside this process (one SparkSession for
every dbt thread), with its own warehouse and Derby metastore (embedded Derby serves one
process at a time, so never the Thrift server's).

``session_env(workdir)`` is the environment for the integration project's ``session``
target (profiles.yml); ``SessionSql`` is a ``SparkSql`` over that same SparkSession; ``stop()`` ends the session
and its JVM, so the rest of the pytest session does not carry it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .sql import Row, SparkSql


def session_env(workdir: Path) -> dict[str, str]:
    workdir = Path(workdir).resolve()
    workdir.mkdir(parents=True, exist_ok=True)
    return {
        "SPARK_INCREMENTAL_WAREHOUSE": str(workdir / "warehouse"),
        "SPARK_INCREMENTAL_METASTORE": str(workdir / "metastore_db"),
        "SPARK_INCREMENTAL_DERBY_HOME": str(workdir),
    }


class SessionSql(SparkSql):
    """``SparkSql`` over the SparkSession that dbt's ``session`` target started in this
    process (start it with a dbt call first: the session takes the profile's settings)."""

    def __init__(self) -> None:
        super().__init__(host="localhost", port=0)

    def connect(self) -> Any:
        from pyspark.sql import SparkSession

        return SparkSession.builder.getOrCreate()

    def close(self) -> None:
        pass

    def _run_once(self, sql: str, fetch: bool) -> tuple[list[str], list[str], list[Row]]:
        frame = self.connect().sql(sql)
        rows = [tuple(row) for row in frame.collect()]
        if not fetch:
            return [], [], []
        return list(frame.columns), [typ.upper() for _, typ in frame.dtypes], rows

    @staticmethod
    def stop() -> None:
        """Stop the SparkSession and shut its JVM down (pyspark keeps the gateway otherwise)."""
        from pyspark import SparkContext
        from pyspark.sql import SparkSession

        active = SparkSession.getActiveSession() or SparkSession._instantiatedSession
        if active is not None:
            active.stop()
        gateway = SparkContext._gateway
        if gateway is not None:
            proc = getattr(gateway, "proc", None)
            try:
                gateway.shutdown()
            finally:
                if proc is not None:
                    if proc.stdin is not None:
                        proc.stdin.close()  # the JVM exits when its stdin closes
                    try:
                        proc.wait(timeout=30)
                    except Exception:
                        proc.kill()
            SparkContext._gateway = None
            SparkContext._jvm = None

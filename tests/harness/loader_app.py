"""A Spark application of its own, run by ``spark-submit`` (tests/harness/cluster.py's
``SubmittedSql``): its own driver, the same metastore and warehouse as the Thrift server.

It reads one SQL statement per line (JSON) from the named pipe given as its argument
(spark-submit gives a Python application no stdin of ours), runs it, and answers on stdout
with one line starting with ``ANSWER`` (JSON: column names and types, the rows as text, or
the error): a second writer that commits when the test says so.
"""

from __future__ import annotations

import json
import sys

from pyspark.sql import SparkSession

ANSWER = "ANSWER "


def main() -> int:
    spark = SparkSession.builder.enableHiveSupport().getOrCreate()
    print(ANSWER + json.dumps({"ready": spark.version}), flush=True)
    with open(sys.argv[1]) as commands:
        for line in commands:
            _answer(spark, line)
    spark.stop()
    return 0


def _answer(spark: SparkSession, line: str) -> None:
    if not line.strip():
        return
    sql = json.loads(line)["sql"]
    try:
        frame = spark.sql(sql)
        rows = [[None if v is None else str(v) for v in row] for row in frame.collect()]
        answer = {"names": frame.columns, "types": [t for _, t in frame.dtypes], "rows": rows}
    except Exception as exc:  # the test raises it on its side
        answer = {"error": f"{type(exc).__name__}: {exc}"[:4000]}
    print(ANSWER + json.dumps(answer), flush=True)


if __name__ == "__main__":
    raise SystemExit(main())

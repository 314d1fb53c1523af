"""A small SQL client for the Thrift server (PyHive), used to set up and check data."""

from __future__ import annotations

import datetime as dt
import decimal
import math
from typing import Any, Iterable, Mapping, Sequence

Row = tuple[Any, ...]

INSERT_BATCH_ROWS = 500


# ------------------------------------------------------------------ literals
def _string_literal(value: str) -> str:
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


def sql_literal(value: Any) -> str:
    """Render a Python value as a typed Spark SQL literal."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "double('NaN')"
        if math.isinf(value):
            return "double('Infinity')" if value > 0 else "double('-Infinity')"
        return repr(value) + "D"
    if isinstance(value, decimal.Decimal):
        return f"{value}BD"
    if isinstance(value, dt.datetime):
        if value.tzinfo is not None:
            value = value.astimezone(dt.timezone.utc).replace(tzinfo=None)
        return f"timestamp'{value.isoformat(sep=' ')}'"
    if isinstance(value, dt.date):
        return f"date'{value.isoformat()}'"
    if isinstance(value, str):
        return _string_literal(value)
    if isinstance(value, (list, tuple)):
        return "array(" + ", ".join(sql_literal(v) for v in value) + ")"
    if isinstance(value, Mapping):
        return "map(" + ", ".join(f"{sql_literal(k)}, {sql_literal(v)}" for k, v in value.items()) + ")"
    raise TypeError(f"no SQL literal for {type(value).__name__}: {value!r}")


def _sort_key(row: Sequence[Any]) -> tuple:
    """Total order over rows with None and mixed types: None first, then by value."""
    key = []
    for v in row:
        if v is None:
            key.append((0, 0, ""))
        elif isinstance(v, (bool, int, float, decimal.Decimal)):
            key.append((1, v, ""))
        elif isinstance(v, (str, dt.datetime, dt.date)):
            key.append((2, 0, v.isoformat() if isinstance(v, (dt.date, dt.datetime)) else v))
        else:
            key.append((3, 0, repr(v)))
    return tuple(key)


# ------------------------------------------------------------------ client
class SparkSql:
    """One PyHive connection; reconnects lazily after the server was restarted."""

    def __init__(self, host: str = "127.0.0.1", port: int = 10000, username: str = "dbt") -> None:
        self.host = host
        self.port = port
        self.username = username
        self._conn: Any = None

    # connection --------------------------------------------------------------
    def connect(self) -> Any:
        if self._conn is None:
            from pyhive import hive

            self._conn = hive.connect(host=self.host, port=self.port, username=self.username)
        return self._conn

    def close(self) -> None:
        if self._conn is not None:
            try:
                self._conn.close()
            except Exception:
                pass
            self._conn = None

    reconnect = close  # the next call opens a fresh connection

    def __enter__(self) -> "SparkSql":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @staticmethod
    def _is_transport_error(exc: BaseException) -> bool:
        return isinstance(exc, (OSError, EOFError)) or type(exc).__module__.startswith("thrift")

    def _run(self, sql: str, fetch: bool) -> tuple[list[str], list[str], list[Row]]:
        reused = self._conn is not None
        try:
            return self._run_once(sql, fetch)
        except Exception as exc:
            if not self._is_transport_error(exc):
                raise
            self.close()
            if not reused:
                raise
            # A connection to a server that was restarted since: the statement never
            # reached a live server, so one retry on a fresh connection is safe.
            return self._run_once(sql, fetch)

    def _run_once(self, sql: str, fetch: bool) -> tuple[list[str], list[str], list[Row]]:
        cursor = self.connect().cursor()
        try:
            cursor.execute(sql)
            if not fetch or cursor.description is None:
                return [], [], []
            names = [d[0].split(".")[-1] for d in cursor.description]
            types = [str(d[1]).upper() for d in cursor.description]
            rows = [tuple(r) for r in cursor.fetchall()]
        finally:
            try:
                cursor.close()
            except Exception:
                pass
        date_cols = [i for i, t in enumerate(types) if t.startswith("DATE")]
        if date_cols:
            rows = [
                tuple(dt.date.fromisoformat(v) if i in date_cols and isinstance(v, str) else v
                      for i, v in enumerate(r))
                for r in rows
            ]
        return names, types, rows

    # queries -----------------------------------------------------------------
    def execute(self, sql: str) -> None:
        self._run(sql, fetch=False)

    def query(self, sql: str) -> list[Row]:
        return self._run(sql, fetch=True)[2]

    def query_dicts(self, sql: str) -> list[dict[str, Any]]:
        names, _, rows = self._run(sql, fetch=True)
        return [dict(zip(names, r)) for r in rows]

    def scalar(self, sql: str) -> Any:
        rows = self.query(sql)
        if len(rows) != 1 or len(rows[0]) != 1:
            raise AssertionError(f"expected one value, got {rows!r} from: {sql}")
        return rows[0][0]

    def table_rows(self, relation: str, order_by: str | None = None) -> list[Row]:
        """All rows of ``relation``; sorted by ``order_by`` (SQL) or else by every column."""
        if order_by:
            return self.query(f"select * from {relation} order by {order_by}")
        return sorted(self.query(f"select * from {relation}"), key=_sort_key)

    def relation_exists(self, relation: str) -> bool:
        schema, _, table = relation.rpartition(".")
        sql = f"show tables in {schema} like '{table}'" if schema else f"show tables like '{table}'"
        return bool(self.query(sql))

    def storage_properties(self, relation: str) -> str:
        """The ``Storage Properties`` line of ``describe table extended`` (a table's options), or ''."""
        for row in self.query(f"describe table extended {relation}"):
            if (row[0] or "").strip() == "Storage Properties":
                return row[1] or ""
        return ""

    # writes ------------------------------------------------------------------
    def create_table(
        self,
        relation: str,
        columns: Mapping[str, str],
        rows: Iterable[Row | Mapping[str, Any]] = (),
        partitioned_by: list[str] | None = None,
        using: str = "parquet",
        replace: bool = True,
    ) -> None:
        """Create ``relation`` (dropping it first when ``replace``) and insert ``rows``."""
        schema = relation.rpartition(".")[0]
        if schema:
            self.execute(f"create schema if not exists {schema}")
        if replace:
            self.execute(f"drop table if exists {relation}")
        cols = ", ".join(f"{name} {typ}" for name, typ in columns.items())
        sql = f"create table {relation} ({cols}) using {using}"
        if partitioned_by:
            sql += f" partitioned by ({', '.join(partitioned_by)})"
        self.execute(sql)
        self.insert_rows(relation, columns, rows)

    def insert_rows(
        self,
        relation: str,
        columns: Mapping[str, str] | Sequence[str],
        rows: Iterable[Row | Mapping[str, Any]],
        batch_rows: int = INSERT_BATCH_ROWS,
    ) -> int:
        """Append rows with batched ``insert into ... values``; returns the row count.

        ``columns`` maps name -> Spark type (values are cast to it) or is a list of names.
        A row is a tuple in column order or a dict keyed by column name (missing -> null).
        """
        names = list(columns)
        types = dict(columns) if isinstance(columns, Mapping) else {}

        def render(row: Row | Mapping[str, Any]) -> str:
            if isinstance(row, Mapping):
                unknown = set(row) - set(names)
                if unknown:
                    raise KeyError(f"{relation}: unknown columns {sorted(unknown)}")
                values = [row.get(n) for n in names]
            else:
                if len(row) != len(names):
                    raise ValueError(f"{relation}: row {row!r} has {len(row)} values, "
                                     f"expected {len(names)}")
                values = list(row)
            parts = []
            for name, value in zip(names, values):
                lit = sql_literal(value)
                typ = types.get(name)
                parts.append(f"cast({lit} as {typ})" if typ and not isinstance(value, (list, tuple, Mapping)) else lit)
            return "(" + ", ".join(parts) + ")"

        head = f"insert into {relation} ({', '.join(names)}) values\n"
        total = 0
        batch: list[str] = []
        for row in rows:
            batch.append(render(row))
            if len(batch) >= batch_rows:
                self.execute(head + ",\n".join(batch))
                total += len(batch)
                batch = []
        if batch:
            self.execute(head + ",\n".join(batch))
            total += len(batch)
        return total

    def drop_schema(self, schema: str) -> None:
        self.execute(f"drop schema if exists {schema} cascade")

"""Snowplow-like events, written by Spark SQL itself into a parquet table partitioned by date.

Everything is computed from ``range()`` and ``xxhash64`` of the row number and a seed, so
the same flags give the same rows, and a day can be loaded on its own later: the events
whose ``event_date`` is day ``d`` are the same whether days are loaded one at a time or
all at once.

Shape of the data (``events_per_day`` = N):

* each base day has N events in sessions of 1 to 15 events (blocks of 16 events split in
  two at a hashed point); a session starts at a hashed second of its day and its events
  are 5 to 300 s apart, so sessions that start after ~22:50 run over midnight;
* from base day ``long_sessions_from_day`` on, ``long_session_share`` of the sessions
  (default 2 %) are long: their events spread over 60 to 71 hours, so a day's data holds
  events of sessions that started up to 3 days before (the lookback case). They stay
  under ``max_session_days`` = 3 days, so none is quarantined;
* users come back: the user of a session is one of N/4 users, the same pool every day;
* ``layout`` says how a day's events are spread over its ``files_per_day`` files (default
  24). ``ordered``: in collector-time order, one file an hour (an hourly loader), so
  Parquet's min/max statistics of ``collector_tstamp`` let Spark skip the files outside a
  time window inside a day partition. ``unordered``: each file holds a hashed sample of
  the whole day (as many loaders and compactions leave a table), so every file's
  statistics span the day and only partition pruning helps. Timestamps are written as
  INT64 micros (INT96 has no statistics) in both.
"""

from __future__ import annotations

import argparse
import datetime as dt
import time
from dataclasses import dataclass
from typing import Any

DEFAULT_START = dt.date(2024, 1, 1)

COLUMNS: dict[str, str] = {
    "event_id": "string",
    "app_id": "string",
    "platform": "string",
    "event_name": "string",
    "collector_tstamp": "timestamp",
    "dvce_created_tstamp": "timestamp",
    "dvce_sent_tstamp": "timestamp",
    "load_tstamp": "timestamp",
    "domain_userid": "string",
    "domain_sessionid": "string",
    "domain_sessionidx": "int",
    "page_url": "string",
    "page_title": "string",
    "page_referrer": "string",
    "useragent": "string",
    "br_lang": "string",
    "geo_country": "string",
    "event_date": "date",  # partition column, last
}
PARTITION_COLUMN = "event_date"
SESSION_BLOCK = 16  # events per block; each block is split into two sessions
MAX_SPREAD_DAYS = 3  # an event lands at most this many days after its session's base day
LAYOUTS = ("ordered", "unordered")


@dataclass(frozen=True)
class EventsSpec:
    """What the generated events table looks like; the same spec gives the same rows."""

    schema: str = "bench_atomic"
    table: str = "events"
    start_date: dt.date = DEFAULT_START
    events_per_day: int = 300_000
    seed: int = 42
    files_per_day: int = 24
    long_sessions_from_day: int | None = None  # day index; None: no long sessions at all
    long_session_share: float = 0.02
    layout: str = "ordered"  # one of LAYOUTS

    @property
    def relation(self) -> str:
        return f"{self.schema}.{self.table}"

    def day(self, index: int) -> dt.date:
        return self.start_date + dt.timedelta(days=index)


def _uuid(expr: str) -> str:
    """A lowercase uuid-shaped string from two hashes of ``expr``."""
    raw = (
        f"concat(lpad(hex(xxhash64({expr}, 'a')), 16, '0'), "
        f"lpad(hex(xxhash64({expr}, 'b')), 16, '0'))"
    )
    return (
        f"lower(regexp_replace({raw}, '^(.{{8}})(.{{4}})(.{{4}})(.{{4}})(.{{12}})$', "
        f"'$1-$2-$3-$4-$5'))"
    )


def _pick(values: list[str | None], hash_expr: str) -> str:
    items = ", ".join("cast(null as string)" if v is None else f"'{v}'" for v in values)
    return f"element_at(array({items}), cast(1 + pmod({hash_expr}, {len(values)}) as int))"


USER_AGENTS = [
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/124.0.0.0 Safari/537.36",
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_4) AppleWebKit/605.1.15 (KHTML, like Gecko) "
    "Version/17.4 Safari/605.1.15",
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 "
    "(KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1",
    "Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0",
]
PAGES = ["home", "products", "blog", "pricing", "docs", "about", "careers", "contact"]


def create_table_sql(spec: EventsSpec) -> str:
    cols = ", ".join(f"{name} {typ}" for name, typ in COLUMNS.items())
    return (
        f"create table if not exists {spec.relation} ({cols}) "
        f"using parquet partitioned by ({PARTITION_COLUMN})"
    )


def select_sql(spec: EventsSpec, first_day: int, last_day: int) -> str:
    """The events whose event_date is in [day first_day, day last_day] (day indexes)."""
    if last_day < first_day:
        raise ValueError(f"last_day {last_day} < first_day {first_day}")
    n = spec.events_per_day
    base_first = max(0, first_day - MAX_SPREAD_DAYS)
    lo, hi = base_first * n, (last_day + 1) * n
    seed = spec.seed
    start_epoch = int(dt.datetime.combine(spec.start_date, dt.time()).replace(
        tzinfo=dt.timezone.utc).timestamp())
    users = max(1, n // 4)
    if spec.long_sessions_from_day is None or spec.long_session_share <= 0:
        long_expr = "false"
    else:
        per_10k = int(round(spec.long_session_share * 10_000))
        long_expr = (f"(d >= {spec.long_sessions_from_day} "
                     f"and pmod(xxhash64(h, 'long'), 10000) < {per_10k})")
    first, last = spec.day(first_day).isoformat(), spec.day(last_day).isoformat()
    return f"""
with
ids as (
    select id, cast(id div {n} as int) as d, id % {n} as j
    from range({lo}, {hi})
),
blocks as (
    select
        id, d, j div {SESSION_BLOCK} as blk, j % {SESSION_BLOCK} as p,
        1 + pmod(xxhash64({seed}, 'cut', d, j div {SESSION_BLOCK}), {SESSION_BLOCK - 1}) as cut
    from ids
),
sessions as (
    select
        id, d,
        if(p >= cut, p - cut, p) as k,
        if(p >= cut, {SESSION_BLOCK} - cut, cut) as n,
        xxhash64({seed}, 'session', d, blk, if(p >= cut, 1, 0)) as h
    from blocks
),
starts as (
    select *, {long_expr} as is_long, {start_epoch} + d * 86400 + pmod(h, 86400) as start_s
    from sessions
),
timed as (
    select
        *,
        (start_s + case
            when is_long and n > 1
                then cast(k * (216000 + pmod(xxhash64(h, 'dur'), 39600)) / (n - 1) as bigint)
            else k * (5 + pmod(xxhash64(h, 'gap'), 296))
        end) * 1000 + pmod(xxhash64({seed}, 'ms', id), 1000) as ts_ms
    from starts
),
events as (
    select
        {_uuid(f"{seed}, 'event', id")} as event_id,
        if(pmod(xxhash64(h, 'app'), 5) = 0, 'mobile', 'website') as app_id,
        if(pmod(xxhash64(h, 'app'), 5) = 0, 'mob', 'web') as platform,
        case
            when k = 0 then 'page_view'
            when pmod(xxhash64({seed}, 'ev', id), 10) < 6 then 'page_view'
            when pmod(xxhash64({seed}, 'ev', id), 10) < 9 then 'page_ping'
            else 'link_click'
        end as event_name,
        timestamp_millis(ts_ms) as collector_tstamp,
        timestamp_millis(ts_ms - pmod(xxhash64({seed}, 'skew', id), 3000)) as dvce_created_tstamp,
        timestamp_millis(ts_ms - pmod(xxhash64({seed}, 'skew', id), 3000) + 500) as dvce_sent_tstamp,
        timestamp_millis(ts_ms + 60000 + pmod(xxhash64({seed}, 'load', id), 840000)) as load_tstamp,
        {_uuid(f"{seed}, 'user', pmod(xxhash64(h, 'u'), {users})")} as domain_userid,
        {_uuid("h, 'sid'")} as domain_sessionid,
        cast(1 + pmod(xxhash64(h, 'idx'), 30) as int) as domain_sessionidx,
        concat('https://www.example.com/', {_pick(PAGES, f"xxhash64({seed}, 'page', id)")}, '/',
               pmod(xxhash64({seed}, 'pnum', id), 50)) as page_url,
        concat(initcap({_pick(PAGES, f"xxhash64({seed}, 'page', id)")}), ' ',
               pmod(xxhash64({seed}, 'pnum', id), 50)) as page_title,
        if(k = 0, {_pick(['https://www.google.com/', 'https://www.bing.com/', None,
                          'https://news.ycombinator.com/'], "xxhash64(h, 'ref')")},
           'https://www.example.com/') as page_referrer,
        {_pick(USER_AGENTS, "xxhash64(h, 'ua')")} as useragent,
        {_pick(['en-GB', 'en-US', 'de-DE', 'fr-FR', 'es-ES'], "xxhash64(h, 'lang')")} as br_lang,
        {_pick(['GB', 'US', 'DE', 'FR', 'ES', 'NL', 'SE'], "xxhash64(h, 'geo')")} as geo_country,
        to_date(timestamp_millis(ts_ms)) as event_date
    from timed
)
select {', '.join(COLUMNS)}
from events
where event_date between date'{first}' and date'{last}'
"""


def load_days_sql(spec: EventsSpec, first_day: int, last_day: int) -> str:
    files = max(1, (last_day - first_day + 1) * spec.files_per_day)
    inner = select_sql(spec, first_day, last_day)
    if spec.layout == "ordered":
        return (
            f"insert into {spec.relation} partition ({PARTITION_COLUMN})\n"
            f"select /*+ REPARTITION_BY_RANGE({files}, collector_tstamp) */ *\n"
            f"from ({inner}) as generated\n"
            f"sort by collector_tstamp"
        )
    if spec.layout != "unordered":
        raise ValueError(f"layout {spec.layout!r}: one of {', '.join(LAYOUTS)}")
    # one task per (day, file): a range partitioning on the day and a hashed file number,
    # so each file of a day gets a sample of all its hours, in no time order
    bucket = f"pmod(xxhash64(event_id, 'file'), {spec.files_per_day})"
    return (
        f"insert into {spec.relation} partition ({PARTITION_COLUMN})\n"
        f"select /*+ REPARTITION_BY_RANGE({files}, {PARTITION_COLUMN}, file_bucket) */ "
        f"{', '.join(COLUMNS)}\n"
        f"from (select *, {bucket} as file_bucket from ({inner}) as generated) as bucketed\n"
        f"sort by file_bucket, event_id"
    )


def create_table(sql: Any, spec: EventsSpec, replace: bool = False) -> None:
    """``sql``: anything with ``execute(str)`` (tests.harness.sql.SparkSql)."""
    sql.execute(f"create schema if not exists {spec.schema}")
    if replace:
        sql.execute(f"drop table if exists {spec.relation}")
    sql.execute(create_table_sql(spec))


def load_days(sql: Any, spec: EventsSpec, first_day: int, last_day: int) -> None:
    """Append the events of day indexes [first_day, last_day] (each day only once!)."""
    # INT64 micros: Parquet keeps min/max statistics for them (not for INT96).
    sql.execute("set spark.sql.parquet.outputTimestampType=TIMESTAMP_MICROS")
    sql.execute(load_days_sql(spec, first_day, last_day))


def count_rows(sql: Any, spec: EventsSpec, first_day: int, last_day: int) -> int:
    return int(sql.scalar(
        f"select count(*) from {spec.relation} where {PARTITION_COLUMN} "
        f"between date'{spec.day(first_day)}' and date'{spec.day(last_day)}'"))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True, help="a running Thrift server")
    parser.add_argument("--schema", default=EventsSpec.schema)
    parser.add_argument("--table", default=EventsSpec.table)
    parser.add_argument("--days", type=int, default=60)
    parser.add_argument("--events-per-day", type=int, default=300_000)
    parser.add_argument("--start-date", type=dt.date.fromisoformat, default=DEFAULT_START)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--files-per-day", type=int, default=24)
    parser.add_argument("--long-sessions-from-day", type=int, default=None)
    parser.add_argument("--layout", choices=LAYOUTS, default="ordered")
    parser.add_argument("--replace", action="store_true", help="drop the table first")
    args = parser.parse_args(argv)

    from tests.harness.sql import SparkSql

    spec = EventsSpec(schema=args.schema, table=args.table, start_date=args.start_date,
                      events_per_day=args.events_per_day, seed=args.seed,
                      files_per_day=args.files_per_day,
                      long_sessions_from_day=args.long_sessions_from_day, layout=args.layout)
    with SparkSql(args.host, args.port) as sql:
        create_table(sql, spec, replace=args.replace)
        t0 = time.monotonic()
        load_days(sql, spec, 0, args.days - 1)
        rows = count_rows(sql, spec, 0, args.days - 1)
    print(f"{spec.relation}: {rows:,} events over {args.days} days "
          f"({spec.day(0)} .. {spec.day(args.days - 1)}) in {time.monotonic() - t0:.1f} s")


if __name__ == "__main__":
    main()

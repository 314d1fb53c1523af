"""A seeded, deterministic generator of Snowplow-like web and app events, delivered in
load-time batches, for the sessionisation tests. Pure Python: no Spark needed.

The timeline (UTC, January 2021) is fixed so that every scenario lands where the tests
expect it; only the background traffic is random (seeded). ``load_batches()`` returns
the batches in load order: the loader writes batch ``k`` at ``BATCH_TIMES[k]`` and dbt
runs right after, with ``spark_incremental__now`` pinned to that time.

Scenarios (session ids are readable, on purpose):

- ``bot-crawler``: a bot session, one page view every 30 minutes for 10 days (it pauses
  with everything else during the outage); capped at ``MAX_SESSION_DAYS`` and quarantined.
- ``long-tab``: a session kept open for 40 hours (page pings), spanning two runs.
- ``late-inside``: part of a session (including its first page view) is loaded one batch
  late, but inside ``lookback_window_hours`` of the previous run: caught, whole session.
- ``late-inside-midnight``: the same, and the late events move the session's start back
  across midnight.
- ``late-outside``: a whole session loaded four days late, far outside the lookback:
  an incremental pipeline on ``collector_tstamp`` never sees it (documented exclusion).
- ``late-outside-partial``: the first page view of a session loaded two days late, after
  the rest of the session was processed: excluded (documented), the rest is kept.
- ``mobile-offline``: an app used offline; half the events are sent two days after they
  were created (within ``days_late_allowed``): the session spans two days.
- ``mobile-too-late-sent``: half the events are sent four days late: dropped.
- ``dup-exact``, ``dup-retry``, ``dup-reloaded``: duplicate event ids (the same row twice
  in one batch; a tracker retry 40 s later; the same event loaded again days later).
- ``dup-cross-1``, ``dup-cross-2``: one event id in two sessions, the second copy sent a
  day later and loaded a batch later: kept once, in the first session, although the two
  copies are processed in different runs.
- ``multi-1`` .. ``multi-4``: one user, four sessions; ``multi-1`` and ``multi-2`` start
  before the user is identified (null ``domain_userid``), ``multi-2`` spans a run and
  midnight, so its user is known only from the second run on (the session's first non-null user id).
- ``id-reused``: a short session on 01-02 whose id gets one more event on 01-12, more than
  ``MAX_SESSION_DAYS + DAYS_LATE_ALLOWED`` after it started: beyond the cap, so the session
  is capped and quarantined (its first three events kept), in one run as across runs.
- ``internal-test``: an app excluded by ``spark_incremental__app_ids``.
- ``null-dvce``: some events without ``dvce_sent_tstamp`` (dropped by default).
- events without a session id (server-side webhooks): dropped.
- no events at all from ``GAP_START`` to ``GAP_END`` (a tracker outage, two full days).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Iterable

# ----------------------------------------------------------------------------- settings
START_DATE = datetime(2021, 1, 1)
BATCH_TIMES = [
    datetime(2021, 1, 3, 6),
    datetime(2021, 1, 4, 6),
    datetime(2021, 1, 6, 0),
    datetime(2021, 1, 7, 6),
    datetime(2021, 1, 8, 6),
    datetime(2021, 1, 10, 18),  # first load after the outage
    datetime(2021, 1, 11, 18),
    datetime(2021, 1, 13, 2),
    datetime(2021, 1, 13, 20),
    datetime(2021, 1, 14, 20),
]
GAP_START = datetime(2021, 1, 8, 0)
GAP_END = datetime(2021, 1, 10, 12)
LAST_EVENT = datetime(2021, 1, 14, 19)
LOAD_LATENCY = timedelta(minutes=3)  # an event is in the first batch at least this much later

# the package settings the scenarios are built around (the tests pass them as vars)
BACKFILL_LIMIT_DAYS = 2
LOOKBACK_WINDOW_HOURS = 6
MAX_SESSION_DAYS = 3
DAYS_LATE_ALLOWED = 3
APP_IDS = ["website", "mobile"]

EVENT_COLUMNS = {
    "event_id": "string",
    "app_id": "string",
    "event_name": "string",
    "domain_sessionid": "string",
    "domain_userid": "string",
    "page_url": "string",
    "collector_tstamp": "timestamp",
    "dvce_created_tstamp": "timestamp",
    "dvce_sent_tstamp": "timestamp",
    "load_tstamp": "timestamp",
    "collector_date": "date",  # the loader's to_date(collector_tstamp)
}

PAGES = [
    "/", "/pricing", "/docs", "/docs/install", "/docs/sessions", "/blog", "/blog/spark",
    "/about", "/careers", "/contact", "/signup", "/login", "/product", "/product/features",
]


@dataclass(frozen=True)
class Event:
    event_id: str
    app_id: str
    event_name: str
    domain_sessionid: str | None
    domain_userid: str | None
    page_url: str
    collector_tstamp: datetime
    dvce_created_tstamp: datetime | None
    dvce_sent_tstamp: datetime | None
    load_tstamp: datetime

    def row(self) -> tuple:
        """The values in ``EVENT_COLUMNS`` order."""
        return (
            self.event_id, self.app_id, self.event_name, self.domain_sessionid,
            self.domain_userid, self.page_url, self.collector_tstamp,
            self.dvce_created_tstamp, self.dvce_sent_tstamp, self.load_tstamp,
            self.collector_tstamp.date(),
        )


@dataclass(frozen=True)
class Batch:
    load_tstamp: datetime
    events: tuple[Event, ...]

    def rows(self) -> list[tuple]:
        return [e.row() for e in self.events]


@dataclass
class Dataset:
    events: list[Event]
    batches: list[Batch]
    # event ids an incremental run on collector_tstamp cannot see, by design: loaded
    # after the runs that covered their session timestamp, outside the lookback, and
    # in sessions that get no later events. The tests list them again explicitly.
    too_late_event_ids: set[str] = field(default_factory=set)
    late_sent_event_ids: set[str] = field(default_factory=set)
    scenario_sessions: set[str] = field(default_factory=set)

    def rows(self) -> list[tuple]:
        return [e.row() for b in self.batches for e in b.events]


# ----------------------------------------------------------------------------- building
class _Builder:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.events: list[Event] = []
        self.scenarios: set[str] = set()
        self.too_late: set[str] = set()
        self.late_sent: set[str] = set()

    # one event; load_tstamp None = loaded normally (first batch after the latency)
    def event(
        self,
        session: str | None,
        index: int,
        name: str,
        ts: datetime,
        *,
        user: str | None,
        app: str = "website",
        page: str | None = None,
        created: datetime | None = None,
        sent: datetime | None | str = "auto",
        load: datetime | None = None,
        event_id: str | None = None,
    ) -> Event:
        created = created if created is not None else ts - timedelta(seconds=self.rng.randint(1, 4))
        if sent == "auto":
            sent = created + timedelta(seconds=self.rng.randint(0, 1))
        event = Event(
            event_id=event_id or f"{session or 'server'}-{index:03d}",
            app_id=app,
            event_name=name,
            domain_sessionid=session,
            domain_userid=user,
            page_url=page or self.rng.choice(PAGES),
            collector_tstamp=ts,
            dvce_created_tstamp=created,
            dvce_sent_tstamp=sent,  # type: ignore[arg-type]
            load_tstamp=load or normal_load_time(ts),
        )
        self.events.append(event)
        return event

    def session(
        self,
        session: str,
        start: datetime,
        names_and_offsets: Iterable[tuple[str, int]],
        *,
        user: str | None,
        app: str = "website",
        load: datetime | None = None,
    ) -> list[Event]:
        """Events at start + offset seconds; the first event is usually a page view."""
        out = []
        for i, (name, offset) in enumerate(names_and_offsets):
            out.append(self.event(session, i, name, start + timedelta(seconds=offset),
                                  user=user, app=app, load=load))
        return out


def normal_load_time(ts: datetime) -> datetime:
    for load in BATCH_TIMES:
        if load >= ts + LOAD_LATENCY:
            return load
    raise ValueError(f"event at {ts} is after the last batch")


def _in_gap(ts: datetime) -> bool:
    return GAP_START <= ts < GAP_END


def _every(minutes: int, count: int, names: Iterable[str] | None = None) -> list[tuple[str, int]]:
    names = list(names) if names is not None else ["page_view"] * count
    return [(names[i], i * minutes * 60) for i in range(count)]


def _background(b: _Builder) -> None:
    """Ordinary traffic: a session starts every 50-110 minutes, 2-15 events each."""
    users = [f"u-{i:03d}" for i in range(40)]
    ts = START_DATE + timedelta(minutes=30)
    index = 0
    while True:
        ts += timedelta(minutes=b.rng.randint(50, 110))
        n_events = b.rng.randint(2, 15)
        offsets = [0]
        for _ in range(n_events - 1):
            offsets.append(offsets[-1] + b.rng.randint(10, 240))
        end = ts + timedelta(seconds=offsets[-1])
        if end > LAST_EVENT:
            break
        if _in_gap(ts) or _in_gap(end) or (ts < GAP_START < end):
            continue
        session = f"s{index:04d}"
        index += 1
        user = b.rng.choice(users)
        app = "mobile" if b.rng.random() < 0.15 else "website"
        for i, offset in enumerate(offsets):
            name = "page_view" if i == 0 else b.rng.choices(
                ["page_view", "page_ping", "link_click"], weights=[35, 45, 20])[0]
            b.event(session, i, name, ts + timedelta(seconds=offset), user=user, app=app)


def _scenarios(b: _Builder) -> None:
    d = datetime

    # a bot that never stops: one page view every 30 minutes for 10 days
    bot = [d(2021, 1, 2, 3) + timedelta(minutes=30 * i) for i in range(10 * 48)]
    for i, ts in enumerate(t for t in bot if not _in_gap(t) and t <= LAST_EVENT):
        b.event("bot-crawler", i, "page_view", ts, user="bot-user", page=f"/catalogue/{i}")

    # a tab left open for 40 hours: page pings every 30 minutes, spans two runs
    names = ["page_view"] + ["page_ping"] * 79 + ["page_view"]
    b.session("long-tab", d(2021, 1, 4, 0, 10), _every(30, 81, names), user="u-longtab")

    # late, inside the lookback: the first page view and the tail load one batch late
    late_in = b.session(
        "late-inside", d(2021, 1, 5, 21, 0),
        _every(4, 12, ["page_view", "page_ping", "page_ping", "page_view", "link_click",
                       "page_ping", "page_ping", "page_view", "page_ping", "page_view",
                       "page_ping", "page_ping"]),
        user="u-late-in")
    _reload(b, late_in, lambda e: e.event_id.endswith(("-000", "-007", "-008", "-009", "-010", "-011")),
            d(2021, 1, 7, 6))

    # late, inside the lookback, and the session's start moves back across midnight
    late_mid = b.session(
        "late-inside-midnight", d(2021, 1, 12, 23, 40),
        _every(5, 13, ["page_view", "page_ping", "page_view", "page_ping", "page_view",
                       "page_ping", "page_ping", "page_view", "link_click", "page_ping",
                       "page_view", "page_ping", "page_ping"]),
        user="u-late-mid")
    _reload(b, late_mid, lambda e: e.collector_tstamp < d(2021, 1, 13), d(2021, 1, 13, 20))

    # too late: a whole session loaded four days later (a lost loader batch replayed)
    late_out = b.session(
        "late-outside", d(2021, 1, 4, 10, 0),
        _every(3, 8, ["page_view", "page_ping", "page_view", "page_ping", "page_view",
                      "link_click", "page_view", "page_ping"]),
        user="u-late-out")
    b.too_late |= _reload(b, late_out, lambda e: True, d(2021, 1, 8, 6))

    # too late: only the first page view, loaded two days after the rest was processed
    late_part = b.session(
        "late-outside-partial", d(2021, 1, 11, 9, 0),
        _every(4, 11, ["page_view", "page_ping", "page_view", "page_ping", "page_view",
                       "page_ping", "link_click", "page_view", "page_ping", "page_view",
                       "page_ping"]),
        user="u-late-part")
    b.too_late |= _reload(b, late_part, lambda e: e.event_id.endswith("-000"), d(2021, 1, 13, 20))

    # an app used offline: the second half is sent two days later (allowed: < 3 days)
    _offline_session(b, "mobile-offline", d(2021, 1, 3, 8, 0), d(2021, 1, 5, 9, 0), "u-mobile")
    # ... and four days later (beyond days_late_allowed): those events are dropped
    b.late_sent |= _offline_session(b, "mobile-too-late-sent", d(2021, 1, 6, 14, 0),
                                    d(2021, 1, 10, 15, 0), "u-mobile-2")

    # duplicates: the same row twice in a batch; a tracker retry; a reload days later
    exact = b.session("dup-exact", d(2021, 1, 6, 10, 0), _every(2, 6, ["page_view", "page_ping",
                      "page_view", "link_click", "page_view", "page_ping"]), user="u-dup")
    b.events.extend([exact[1], exact[2]])
    retry = b.session("dup-retry", d(2021, 1, 11, 15, 0), _every(3, 5, ["page_view", "page_ping",
                      "page_view", "page_ping", "page_view"]), user="u-dup")
    original = retry[2]
    b.events.append(replace(
        original,
        collector_tstamp=original.collector_tstamp + timedelta(seconds=40),
        dvce_sent_tstamp=original.dvce_sent_tstamp + timedelta(seconds=40),  # type: ignore[operator]
        load_tstamp=normal_load_time(original.collector_tstamp + timedelta(seconds=40)),
    ))
    reloaded = b.session("dup-reloaded", d(2021, 1, 10, 14, 0), _every(5, 4, ["page_view",
                         "page_ping", "page_view", "page_ping"]), user="u-dup")
    b.events.append(replace(reloaded[0], load_tstamp=d(2021, 1, 13, 2)))

    # one user, four sessions; identified mid-session in the first two
    b.session("multi-1", d(2021, 1, 2, 10, 0), _every(5, 5), user=None)
    for e in list(b.events[-5:])[2:]:
        b.events[b.events.index(e)] = replace(e, domain_userid="u-multi")
    multi2 = b.session("multi-2", d(2021, 1, 5, 23, 30),
                       _every(5, 15, ["page_view", "page_ping"] * 7 + ["page_view"]), user=None)
    for e in multi2:
        if e.collector_tstamp >= d(2021, 1, 6):  # identified after midnight, in the next batch
            b.events[b.events.index(e)] = replace(e, domain_userid="u-multi")
    b.session("multi-3", d(2021, 1, 10, 13, 0), _every(6, 4), user="u-multi", app="mobile")
    b.session("multi-4", d(2021, 1, 13, 9, 0), _every(2, 6), user="u-multi")

    # filtered out: another app, server-side events without a session, no device time
    b.session("internal-test", d(2021, 1, 6, 12, 0), _every(1, 5), user="u-qa", app="internal-test")
    for i in range(5):
        b.event(None, i, "transaction", d(2021, 1, 4, 12, 0) + timedelta(hours=i * 5),
                user="u-001", page="/checkout", event_id=f"server-{i:03d}")
    null_dvce = b.session("null-dvce", d(2021, 1, 12, 8, 0), _every(3, 6), user="u-002")
    for e in null_dvce[3:]:
        b.events[b.events.index(e)] = replace(e, dvce_sent_tstamp=None)

    # the same event id in two sessions, the second copy sent a day later (within
    # days_late_allowed) and loaded in a later batch: kept once, in the first session
    cross = b.session("dup-cross-1", d(2021, 1, 11, 9, 0), _every(2, 4, ["page_view", "page_ping",
                      "page_view", "page_ping"]), user="u-cross")
    b.session("dup-cross-2", d(2021, 1, 12, 10, 0), _every(2, 3, ["page_view", "page_ping",
              "page_view"]), user="u-cross")
    copied = cross[2]
    b.events.append(replace(
        copied,
        domain_sessionid="dup-cross-2",
        collector_tstamp=d(2021, 1, 12, 10, 1),
        dvce_sent_tstamp=d(2021, 1, 12, 10, 1) - timedelta(seconds=1),
        load_tstamp=normal_load_time(d(2021, 1, 12, 10, 1)),
    ))

    # a session id that comes back ten days after its session (more than max_session_days +
    # days_late_allowed): the late event is beyond the cap, so the session is capped and
    # quarantined, and the run that sees it must find the session's row although it
    # started long before that run's window
    b.session("id-reused", d(2021, 1, 2, 12, 0), _every(5, 3, ["page_view", "page_ping", "page_view"]),
              user="u-reused")
    b.event("id-reused", 3, "page_view", d(2021, 1, 12, 10, 0), user="u-reused")

    b.scenarios |= {
        "id-reused", "bot-crawler", "long-tab", "late-inside", "late-inside-midnight", "late-outside",
        "late-outside-partial", "mobile-offline", "mobile-too-late-sent", "dup-exact",
        "dup-retry", "dup-reloaded", "multi-1", "multi-2", "multi-3", "multi-4",
        "internal-test", "null-dvce", "dup-cross-1", "dup-cross-2",
    }


def _reload(b: _Builder, events: list[Event], which, load: datetime) -> set[str]:
    """Load the selected events at ``load`` instead of their normal batch."""
    assert load in BATCH_TIMES, load
    moved = set()
    for e in events:
        if which(e):
            b.events[b.events.index(e)] = replace(e, load_tstamp=load)
            moved.add(e.event_id)
    return moved


def _offline_session(b: _Builder, session: str, start: datetime, sent_at: datetime, user: str) -> set[str]:
    """Ten app events two minutes apart; the second half is sent (and collected) at
    ``sent_at``. Returns the ids of the events sent late."""
    late = set()
    for i in range(10):
        created = start + timedelta(minutes=2 * i)
        name = "page_view" if i % 3 == 0 else "screen_view" if i % 3 == 1 else "page_ping"
        if i < 5:
            b.event(session, i, name, created + timedelta(seconds=1), user=user, app="mobile",
                    created=created, sent=created)
        else:
            collected = sent_at + timedelta(seconds=i)
            b.event(session, i, name, collected, user=user, app="mobile",
                    created=created, sent=collected - timedelta(seconds=1))
            late.add(f"{session}-{i:03d}")
    return late


def generate(seed: int = 20210101) -> Dataset:
    """The whole dataset; the same seed gives the same events, byte for byte."""
    b = _Builder(seed)
    _background(b)
    _scenarios(b)
    for e in b.events:
        assert e.collector_tstamp <= LAST_EVENT, e
        assert e.load_tstamp >= e.collector_tstamp + LOAD_LATENCY or e.load_tstamp in BATCH_TIMES, e
        assert not _in_gap(e.collector_tstamp), e
    batches = []
    for load in BATCH_TIMES:
        in_batch = [e for e in b.events if e.load_tstamp == load]
        in_batch.sort(key=lambda e: (e.collector_tstamp, e.event_id))
        batches.append(Batch(load, tuple(in_batch)))
    assert sum(len(x.events) for x in batches) == len(b.events)
    return Dataset(
        events=[e for x in batches for e in x.events],
        batches=batches,
        too_late_event_ids=b.too_late,
        late_sent_event_ids=b.late_sent,
        scenario_sessions=b.scenarios,
    )


def load_batches(seed: int = 20210101) -> list[Batch]:
    return generate(seed).batches


if __name__ == "__main__":  # a quick look at what the generator makes
    data = generate()
    sessions = {e.domain_sessionid for e in data.events if e.domain_sessionid}
    print(f"{len(data.events)} event rows, {len({e.event_id for e in data.events})} event ids, "
          f"{len(sessions)} sessions, {len(data.batches)} batches")
    for batch in data.batches:
        print(f"  {batch.load_tstamp}: {len(batch.events)} events")
    print("too late:", sorted(data.too_late_event_ids))

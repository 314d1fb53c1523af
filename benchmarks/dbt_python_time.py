"""Where one dbt invocation's Python time goes: macro compile and garbage collection.

Runs one dbt command in this process (dbt's own ``dbtRunner``) and times two costs that
Spark's metrics never show:

- each macro template Jinja compiles on its first use in the invocation (dbt compiles a
  macro when it is first called, keyed by its text: ``TemplateCache.get_node_template``);
- the pauses of Python's garbage collector (``gc.callbacks``), by generation.

Usage (from the dbt project's folder, with the profile's environment set)::

    .venv/bin/python -m benchmarks.dbt_python_time --json out.json -- \\
        run --select my_model --project-dir . --profiles-dir .

prints the wall time, the templates compiled (all, and the package's), their compile
time, the collector's pauses and the costliest templates, and writes them as JSON with
``--json``. A collection that falls inside a template's compile is counted in both.

dbt starts helper processes with multiprocessing's ``spawn`` method, which imports the
main module again in the child: the guard at the bottom keeps a child from running dbt a
second time (the package would refuse such a repeated invocation id at its run lock).
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

PACKAGE_PREFIX = "macro.spark_incremental."


@dataclass
class Compiled:
    unique_id: str
    seconds: float
    characters: int


@dataclass
class PythonTime:
    wall_s: float = 0.0
    success: bool = False
    compiled: list[Compiled] = field(default_factory=list)
    gc_pause_s: float = 0.0
    gc_collections: list[int] = field(default_factory=lambda: [0, 0, 0])

    def compile_s(self, prefix: str = "") -> float:
        return sum(c.seconds for c in self.compiled if c.unique_id.startswith(prefix))

    def count(self, prefix: str = "") -> int:
        return sum(1 for c in self.compiled if c.unique_id.startswith(prefix))

    def summary(self, top: int = 15) -> str:
        lines = [
            f"wall {self.wall_s:.2f} s (dbt {'succeeded' if self.success else 'failed'})",
            f"macro templates compiled: {self.count()} in {self.compile_s():.3f} s; the package's "
            f"{self.count(PACKAGE_PREFIX)} in {self.compile_s(PACKAGE_PREFIX):.3f} s "
            f"({sum(c.characters for c in self.compiled if c.unique_id.startswith(PACKAGE_PREFIX)):,} characters)",
            f"garbage collector: {self.gc_pause_s:.3f} s of pauses, collections by generation "
            + " / ".join(str(n) for n in self.gc_collections),
            "costliest templates (ms, characters, macro):",
        ]
        for c in sorted(self.compiled, key=lambda c: c.seconds, reverse=True)[:top]:
            lines.append(f"  {c.seconds * 1000:7.1f} {c.characters:7,} {c.unique_id}")
        return "\n".join(lines)


def profile_dbt(dbt_args: list[str]) -> PythonTime:
    """Run ``dbt <dbt_args>`` in this process with the two timers in place. dbt keeps
    compiled templates for the life of the process: they are dropped first, so that every
    call pays what a new dbt process pays."""
    from dbt.cli.main import dbtRunner
    from dbt_common.clients import jinja

    found = PythonTime()
    original = jinja.TemplateCache.get_node_template

    def timed(cache: Any, node: Any) -> Any:
        if node.macro_sql in cache.file_cache:
            return cache.file_cache[node.macro_sql]
        start = time.perf_counter()
        template = original(cache, node)
        found.compiled.append(Compiled(str(getattr(node, "unique_id", "?")),
                                       time.perf_counter() - start, len(node.macro_sql)))
        return template

    pause_started = [0.0]

    def on_gc(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            pause_started[0] = time.perf_counter()
        else:
            found.gc_pause_s += time.perf_counter() - pause_started[0]
            found.gc_collections[info["generation"]] += 1

    jinja.template_cache.clear()
    jinja.TemplateCache.get_node_template = timed  # type: ignore[method-assign]
    gc.callbacks.append(on_gc)
    start = time.perf_counter()
    try:
        found.success = bool(dbtRunner().invoke(dbt_args).success)
    finally:
        found.wall_s = time.perf_counter() - start
        gc.callbacks.remove(on_gc)
        jinja.TemplateCache.get_node_template = original  # type: ignore[method-assign]
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--json", type=Path, default=None, help="also write the figures here")
    parser.add_argument("--top", type=int, default=15, help="costliest templates to print")
    parser.add_argument("dbt_args", nargs=argparse.REMAINDER, help="-- then dbt's arguments")
    args = parser.parse_args(argv)
    dbt_args = args.dbt_args[1:] if args.dbt_args[:1] == ["--"] else args.dbt_args
    if not dbt_args:
        parser.error("give dbt's arguments after --, e.g. -- run --select my_model")
    found = profile_dbt(dbt_args)
    print(found.summary(args.top))
    if args.json is not None:
        args.json.write_text(json.dumps(asdict(found), indent=1))
    return 0 if found.success else 1


if __name__ == "__main__":
    sys.exit(main())

"""Nothing machine-specific is committed: no symlinks, no files dbt, pip or Python generate.

A clone must work in any folder on any machine. A committed symlink points at a path of
the machine that made it, and dbt's own files (dbt_packages/, target/, logs/, .user.yml,
package-lock.yml) record that machine's installs and runs. No Spark needed.
"""

from __future__ import annotations

import subprocess
from pathlib import PurePosixPath

import pytest

from tests.harness.dbt import REPO_ROOT

pytestmark = pytest.mark.smoke

# folders dbt writes into, and files it writes, anywhere in the repository
_GENERATED_DIRS = {"dbt_packages", "target", "logs"}
_GENERATED_FILES = {".user.yml", "package-lock.yml"}
# what pip and Python leave behind (a `pip download` in the checkout, bytecode)
_BUILD_OUTPUT_SUFFIXES = (".whl", ".tar.gz", ".pyc", ".egg")


def _tracked() -> list[tuple[str, str]]:
    """(mode, path) of every file in git's index."""
    try:
        out = subprocess.run(
            ["git", "ls-files", "-s", "-z"], cwd=REPO_ROOT, check=True,
            capture_output=True, text=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError) as exc:
        pytest.skip(f"not a git checkout: {exc}")
    entries = []
    for entry in out.split("\0"):
        if entry:
            meta, _, path = entry.partition("\t")
            entries.append((meta.split()[0], path))
    return entries


def test_no_symlink_or_dbt_generated_file_is_tracked() -> None:
    tracked = _tracked()
    assert tracked, "git ls-files listed nothing"
    symlinks = [path for mode, path in tracked if mode == "120000"]
    generated = [
        path for _, path in tracked
        if PurePosixPath(path).name in _GENERATED_FILES
        or _GENERATED_DIRS & set(PurePosixPath(path).parts[:-1])
    ]
    built = [path for _, path in tracked if path.endswith(_BUILD_OUTPUT_SUFFIXES)]
    assert symlinks == [], f"symlinks are tracked (they point at one machine's paths): {symlinks}"
    assert generated == [], f"files dbt generates are tracked: {generated}"
    assert built == [], f"files pip or Python write are tracked: {built}"


def test_no_merge_conflict_marker_is_tracked() -> None:
    markers = ("<<<<<<< ", ">>>>>>> ")
    found = []
    for mode, path in _tracked():
        if mode == "120000" or not path.endswith((".md", ".sql", ".yml", ".py", ".txt", ".cfg", ".ini")):
            continue
        text = (REPO_ROOT / path).read_text(encoding="utf-8", errors="replace")
        found += [f"{path}:{n}" for n, line in enumerate(text.splitlines(), 1) if line.startswith(markers)]
    assert found == [], f"merge conflict markers are tracked: {found}"

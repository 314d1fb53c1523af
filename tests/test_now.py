"""The package clock: var spark_incremental__now, else env SPARK_INCREMENTAL_NOW, else the
real UTC clock; the environment variable moves without a dbt re-parse. The same for every
var for one run (the spec marks them `env`): SPARK_INCREMENTAL_<NAME>."""

from __future__ import annotations

import datetime as dt

import pytest

from tests.harness.dbt import DbtProject, DbtResult

PRINT_NOW = """{% macro print_now() -%}
  {%- do log('spark_incremental: now ' ~ spark_incremental.now(), info=true) -%}
  {%- do log('spark_incremental: models_to_remove ' ~ spark_incremental.get_config_var('models_to_remove')
      | join('+') ~ ' log_plan ' ~ spark_incremental.get_config_var('log_plan'), info=true) -%}
{%- endmacro %}
"""


def said_now(result: DbtResult) -> str:
    found = [line for line in result.pkg_lines() if line.startswith("spark_incremental: now ")]
    assert len(found) == 1, result.tail(30)
    return found[0][len("spark_incremental: now "):]


def parse_log(result: DbtResult) -> str:
    return "\n".join(result.lines + result.debug_lines)


def test_clock_from_env_keeps_partial_parsing_and_var_wins(
    dbt_project: DbtProject, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = dbt_project
    project.write_file("macros/print_now.sql", PRINT_NOW)

    def now_op(env_now: str | None, **vars: str) -> DbtResult:
        return project.run("run-operation", "print_now", vars=vars,
                           env={"SPARK_INCREMENTAL_NOW": env_now})

    first = now_op("2021-03-04 05:06:07")
    assert said_now(first) == "2021-03-04 05:06:07"

    # the clock moves by environment only: dbt reuses its parse
    moved = now_op("2021-03-05 00:00:00")
    assert said_now(moved) == "2021-03-05 00:00:00"
    assert "Unable to do partial parsing" not in parse_log(moved)

    # the var, when set, beats the environment (passed as --vars, not translated)
    monkeypatch.setattr(project, "env_vars", {})
    pinned = now_op("2021-03-05 00:00:00", spark_incremental__now="2022-01-01 10:00:00")
    assert said_now(pinned) == "2022-01-01 10:00:00"
    monkeypatch.undo()

    # neither: the machine's UTC clock
    before = dt.datetime.now(dt.timezone.utc).replace(tzinfo=None, microsecond=0)
    real = dt.datetime.fromisoformat(said_now(now_op(None)))
    after = dt.datetime.now(dt.timezone.utc).replace(tzinfo=None)
    assert before <= real <= after

    # a bad value names the environment variable and the formats
    bad = project.run(
        "run-operation", "print_now", env={"SPARK_INCREMENTAL_NOW": "next tuesday"},
        expect_success=False)
    said = bad.text() + str(bad.exception)
    assert "spark_incremental__now = next tuesday (text) is not allowed: it must be a date" in said, said
    assert "came from the environment variable SPARK_INCREMENTAL_NOW" in said, said


def test_vars_for_one_run_from_env_keep_partial_parsing(dbt_project: DbtProject) -> None:
    """Every var the spec marks `env` is read from SPARK_INCREMENTAL_<NAME> when the var is
    not set, as text ('a,b' a list, 'TRUE' true), without a dbt re-parse; a bad value names
    the environment variable."""
    project = dbt_project
    project.write_file("macros/print_now.sql", PRINT_NOW)

    def said(result: DbtResult) -> str:
        found = [line for line in result.pkg_lines() if "models_to_remove" in line]
        assert len(found) == 1, result.tail(30)
        return found[0]

    env = {"SPARK_INCREMENTAL_MODELS_TO_REMOVE": "a,b", "SPARK_INCREMENTAL_LOG_PLAN": "TRUE"}
    project.run("run-operation", "print_now", env=env)
    moved = project.run("run-operation", "print_now",
                        env={**env, "SPARK_INCREMENTAL_MODELS_TO_REMOVE": "[c]"})
    assert said(moved) == "spark_incremental: models_to_remove c log_plan True", moved.tail(20)
    assert "Unable to do partial parsing" not in parse_log(moved)
    plain = project.run("run-operation", "print_now",
                        env={"SPARK_INCREMENTAL_MODELS_TO_REMOVE": None, "SPARK_INCREMENTAL_LOG_PLAN": " "})
    assert said(plain) == "spark_incremental: models_to_remove  log_plan False", plain.tail(20)
    bad = project.run("run-operation", "print_now", env={"SPARK_INCREMENTAL_LOG_PLAN": "maybe"},
                      expect_success=False)
    text = bad.text() + str(bad.exception)
    assert "spark_incremental__log_plan = maybe (text) is not allowed" in text, text
    assert "came from the environment variable SPARK_INCREMENTAL_LOG_PLAN" in text, text

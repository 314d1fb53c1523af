"""One spec for every ``spark_incremental__*`` var (macros/config/config_var_spec.sql).

* every var of the spec, given a bad value, stops ``dbt run`` with a message naming the
  var, its value and type, what is allowed and the fix, and nothing is written: the
  schema's tables and every row of the manifest log are the same before and after;
* text from ``env_var`` is coerced: 'false' is false (allow_refresh, force_unlock), '30'
  is 30, '' is null for a nullable var;
* the README vars table is the one generated from the spec.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from tests.harness.dbt import REPO_ROOT, DbtProject
from tests.harness.sql import SparkSql
from tests.test_run_limits import EVENT_COLUMNS, event, manifest

SPEC_FILE = REPO_ROOT / "macros" / "config" / "config_var_spec.sql"

# var -> (bad value, the message it must give)
BAD: dict[str, tuple[Any, str]] = {
    "events_enabled": ("no", "= no (text) is not allowed: it must be true or false"),
    "start_date": ("yesterday", "= yesterday (text) is not allowed: it must be a date 'YYYY-MM-DD'"),
    "backfill_limit_days": ("0", "= 0 (text) is not allowed: it must be a whole number >= 1"),
    "lookback_window_hours": ("six", "= six (text) is not allowed: it must be a whole number >= 0"),
    "events_schema": ("atomic; drop", "= atomic; drop (text) is not allowed: it must be a schema or table name"),
    "events_table": ("events--x", "= events--x (text) is not allowed: it must be a schema or table name"),
    "events_partition_column": ("event date", "= event date (text) is not allowed: it must be a column name"),
    "events_partition_format": ("yyyymmdd", "= yyyymmdd (text) is not allowed: it must be one of:"
                                            " date, string, int or null"),
    "event_identifier": ("event-id", "= event-id (text) is not allowed: it must be a column name"),
    "session_identifier": ("1abc", "= 1abc (text) is not allowed: it must be a column name"),
    "user_identifier": (5, "= 5 (integer) is not allowed: it must be a column name"),
    "session_timestamp": ("a.b", "= a.b (text) is not allowed: it must be a column name"),
    "device_created_timestamp": ("x y", "= x y (text) is not allowed: it must be a column name"),
    "device_sent_timestamp": (["x"], "(list) is not allowed: it must be a column name"),
    "load_timestamp": ("loaded at", "= loaded at (text) is not allowed: it must be a column name"),
    "load_commit_lag_seconds": ("-5", "= -5 (text) is not allowed: it must be a whole number >= 0"),
    "app_id_column": ("app id", "= app id (text) is not allowed: it must be a column name"),
    "max_session_days": (0, "= 0 (integer) is not allowed: it must be a whole number >= 1"),
    "days_late_allowed": (-1, "= -1 (integer) is not allowed: it must be a whole number >= 0"),
    "session_lookback_days": ("many", "= many (text) is not allowed: it must be a whole number >= 1"),
    "session_filter_buckets": ("0", "= 0 (text) is not allowed: it must be a whole number >= 1"),
    "session_filter_step_days": ("0", "= 0 (text) is not allowed: it must be a whole number >= 1"),
    "allow_null_dvce_tstamps": ("yes", "= yes (text) is not allowed: it must be true or false"),
    "dedupe_across_runs": ("sometimes", "= sometimes (text) is not allowed: it must be true or false"),
    "app_ids": ([1, 2], "(list) is not allowed: it must be a list of text values"),
    "models_to_remove": ({"a": 1}, "(mapping) is not allowed: it must be a list of text values"),
    "allow_refresh": ("maybe", "= maybe (text) is not allowed: it must be true or false"),
    "now": ("tomorrow", "= tomorrow (text) is not allowed: it must be a date 'YYYY-MM-DD'"),
    "changes": (5, "= 5 (integer) is not allowed: it must be a list of {table, type, scope}"),
    "changes_file": (["a.yml"], "(list) is not allowed: it must be text (a file path) or null"),
    "log_plan": ("on", "= on (text) is not allowed: it must be true or false"),
    "plan_format": ("yaml", "= yaml (text) is not allowed: it must be one of: text, json"),
    "restate": ({"model": "x"}, "(mapping) is not allowed: start is missing; the value must be {model: name"),
    "target_partition_rows": (0, "= 0 (integer) is not allowed: it must be a whole number >= 1"),
    "lock_timeout_minutes": ("ten", "= ten (text) is not allowed: it must be a whole number >= 1"),
    "force_unlock": ("no", "= no (text) is not allowed: it must be true or false"),
    "manifest_compact_after": (-1, "= -1 (integer) is not allowed: it must be a whole number >= 0"),
    "offline_compile": ("off", "= off (text) is not allowed: it must be true or false"),
    "fail_at": ("nowhere", "= nowhere (text) is not allowed: it must be one of: before_overwrite"),
}

# well-formed names that are not columns of the events table: found before any SQL runs,
# listing the table's columns of the right type (its partition columns for the partition column)
MISSING_COLUMNS: dict[str, tuple[str, str]] = {
    "event_identifier": ("message_id", "Its identifier columns (string/varchar/char/int/bigint/integer/long):"
                                       " event_id,"),
    "session_timestamp": ("received_at", "Its timestamp columns (timestamp/timestamp_ntz/timestamp_ltz):"
                                         " collector_tstamp, dvce_created_tstamp, dvce_sent_tstamp, load_tstamp."),
    "device_sent_timestamp": ("sent_at", "Set spark_incremental__device_sent_timestamp to one of them (or to null)."),
    # the table's partition columns (this one has none), not its columns of a date type
    "events_partition_column": ("event_date", "Its partition columns: none (the table is not partitioned)."
                                              " Set spark_incremental__events_partition_column to null"),
}


def spec_names() -> list[str]:
    return re.findall(r"\{'name': '(\w+)'", SPEC_FILE.read_text())


def test_every_var_of_the_spec_has_a_bad_value_here() -> None:
    assert sorted(BAD) == sorted(spec_names())


def _state(project: DbtProject, spark_sql: SparkSql) -> tuple[list[str], list[tuple]]:
    tables = sorted(row[1] for row in spark_sql.query(f"show tables in {project.schema}"))
    log = spark_sql.query(f"select * from {project.relation('spark_incremental_manifest_log')}")
    return tables, sorted(log, key=repr)


@pytest.fixture
def project_after_one_run(dbt_project: DbtProject, spark_sql: SparkSql) -> DbtProject:
    spark_sql.create_table(
        f"{dbt_project.schema}.events", EVENT_COLUMNS,
        [event("e1", "s1", "2021-01-01 10:00:00"), event("e2", "s1", "2021-01-01 10:05:00")])
    dbt_project.default_vars.update(
        {"spark_incremental__start_date": "2021-01-01", "spark_incremental__now": "2021-01-10 00:00:00"})
    dbt_project.run("run")
    return dbt_project


def test_bad_values_stop_the_run_and_write_nothing(
        project_after_one_run: DbtProject, spark_sql: SparkSql) -> None:
    project = project_after_one_run
    project.env_vars = {}  # every var by --vars, now included, so each is checked as a var
    before = _state(project, spark_sql)
    assert "spark_incremental_base_sessions_lifecycle_manifest" in before[0] and before[1], before
    failures = []
    # every bad value at once: the start hook lists each bad var in one message (a dbt run
    # per value took 40 runs, each a full parse); a var dbt reads while it parses stops the
    # parse first, so those that did not show are run alone below
    together = project.run("run", vars={f"spark_incremental__{n}": v for n, (v, _) in BAD.items()},
                           expect_success=False)
    said = (together.text() + "\n" + str(together.exception)).splitlines()
    if _state(project, spark_sql) != before:
        failures.append("all bad values together: something was written")
    # dbt names the model it was parsing; the message says the vars are not that model's
    if not any("these vars are project-wide, not settings of the model dbt names above" in line for line in said):
        failures.append(f"all bad values together: nothing says the vars are project-wide\n{together.tail(8)}")
    # each var's own line says what is wrong with its value and how to fix it
    shown = [name for name, (_, message) in BAD.items()
             if any(f"spark_incremental__{name} " in line and message in line
                    and "Fix it in dbt_project.yml vars:" in line for line in said)]
    assert len(shown) >= len(BAD) // 2, f"only {shown} reported together\n{together.tail(20)}"
    cases = [(name, value, message) for name, (value, message) in BAD.items() if name not in shown]
    cases += [(name, value, message) for name, (value, message) in MISSING_COLUMNS.items()]
    for name, value, message in cases:
        result = project.run("run", vars={f"spark_incremental__{name}": value}, expect_success=False)
        text = result.text() + repr(result.exception)
        var = f"spark_incremental__{name}"
        if var not in text or message not in text:
            failures.append(f"{var}={value!r}: want {message!r}\n{result.tail(8)}")
            continue
        if name in BAD and value == BAD[name][0] and "Fix it in dbt_project.yml vars:" not in text:
            failures.append(f"{var}: no fix in the message\n{result.tail(8)}")
        if _state(project, spark_sql) != before:
            failures.append(f"{var}={value!r}: something was written")
    # the clock pinned by the environment (read at execution only) is checked by the start
    # hook too, before the lock is taken
    project.env_vars = {"spark_incremental__now": "SPARK_INCREMENTAL_NOW"}
    result = project.run("run", vars={"spark_incremental__now": "2021-1-6 25:00"}, expect_success=False)
    text = result.text() + repr(result.exception)
    if "SPARK_INCREMENTAL_NOW" not in text or "on-run-start" not in text or _state(project, spark_sql) != before:
        failures.append(f"SPARK_INCREMENTAL_NOW: not stopped by the start hook before any write\n{result.tail(8)}")
    assert not failures, "\n\n".join(failures)


SHOW_VARS = """
{% macro show_vars(names) -%}
  {%- set values = {} -%}
  {%- for name in names -%}
    {%- do values.update({name: spark_incremental.get_config_var(name)}) -%}
  {%- endfor -%}
  {%- do log('show_vars: ' ~ tojson(values), info=true) -%}
  {#- once every var is checked, get_config_var answers from that check: the same values -#}
  {%- set checked = spark_incremental.validate_config_vars() -%}
  {%- set again = {} -%}
  {%- for name in names -%}
    {%- do again.update({name: spark_incremental.get_config_var(name)}) -%}
  {%- endfor -%}
  {%- do log('show_vars checked: ' ~ tojson(again), info=true) -%}
{%- endmacro %}
"""


def test_text_from_env_var_is_coerced(dbt_project: DbtProject) -> None:
    dbt_project.write_file("macros/show_vars.sql", SHOW_VARS)
    given = {
        "allow_refresh": "false", "force_unlock": "FALSE", "log_plan": "True", "events_enabled": " true ",
        "backfill_limit_days": "30", "lookback_window_hours": 0, "device_sent_timestamp": "",
        "app_id_column": "null", "events_partition_format": "INT", "app_ids": " web, mob ",
        "models_to_remove": ' [sessions, "page_views"] ',
    }
    result = dbt_project.run(
        "run-operation", "show_vars", "--args", json.dumps({"names": sorted(given)}),
        vars={f"spark_incremental__{k}": v for k, v in given.items()})
    want = {
        "allow_refresh": False, "force_unlock": False, "log_plan": True, "events_enabled": True,
        "backfill_limit_days": 30, "lookback_window_hours": 0, "device_sent_timestamp": None,
        "app_id_column": None, "events_partition_format": "int", "app_ids": ["web", "mob"],
        "models_to_remove": ["sessions", "page_views"],
    }
    for prefix in ("show_vars: ", "show_vars checked: "):
        line = next(line for line in result.lines if line.startswith(prefix))
        assert json.loads(line.split(": ", 1)[1]) == want, prefix
    result = dbt_project.run(
        "run-operation", "show_vars", "--args", json.dumps({"names": ["app_ids"]}),
        vars={"spark_incremental__app_ids": "web,,mob"}, expect_success=False)
    text = result.text() + repr(result.exception)
    assert "spark_incremental__app_ids" in text and "an empty name between commas" in text, result.tail(8)


def test_readme_vars_table_is_generated_from_the_spec(dbt_project: DbtProject) -> None:
    result = dbt_project.run("run-operation", "spark_incremental.config_vars_table")
    table = next(line for line in result.lines if "| var | default | type | meaning |" in line).strip()
    readme = (REPO_ROOT / "README.md").read_text()
    assert table in readme, (
        "README.md's vars table differs from the spec; replace it with the output of "
        "`dbt run-operation spark_incremental.config_vars_table`:\n" + table)
    assert len(table.splitlines()) == len(spec_names()) + 2


ZONE_CHECK = """
{% macro zone_check() -%}
  {%- do run_query("set spark.sql.session.timeZone=America/New_York") -%}
  {%- do spark_incremental._check_session_time_zone() -%}
  {%- do run_query("set spark.sql.session.timeZone=UTC") -%}
  {%- do spark_incremental._check_session_time_zone() -%}
{%- endmacro %}
"""


def test_time_zone_warning_reads_the_spark_session(dbt_project: DbtProject) -> None:
    """Read from Spark (not from manifest rows), so it warns on the very first run; over
    Thrift it advises the set:hiveconf: key, which does reach the session."""
    dbt_project.write_file("macros/zone_check.sql", ZONE_CHECK)
    result = dbt_project.run("run-operation", "zone_check")
    warnings = [line for line in result.lines if "Spark session time zone is" in line]
    assert len(warnings) == 1 and "'America/New_York', not UTC" in warnings[0], result.tail(10)
    if dbt_project.target != "thrift":
        return
    # the advice for thrift is the set:hiveconf: key, and that key does reach the Spark
    # session (a plain spark.sql.session.timeZone key in server_side_parameters does not)
    assert '"set:hiveconf:spark.sql.session.timeZone": UTC' in warnings[0], warnings[0]
    profile = dbt_project.project_dir / "profiles.yml"
    text = profile.read_text()
    assert '"set:hiveconf:spark.sql.session.timeZone": UTC' in text
    profile.write_text(text.replace('"set:hiveconf:spark.sql.session.timeZone": UTC',
                                    '"set:hiveconf:spark.sql.session.timeZone": America/Chicago', 1))
    dbt_project.write_file("macros/zone_check.sql", "{% macro zone_check() -%}\n"
                           "  {%- do spark_incremental._check_session_time_zone() -%}\n{%- endmacro %}\n")
    result = dbt_project.run("run-operation", "zone_check")
    warnings = [line for line in result.lines if "Spark session time zone is" in line]
    assert len(warnings) == 1 and "'America/Chicago', not UTC" in warnings[0], result.tail(10)


def test_app_ids_that_match_no_event_of_the_window_are_a_warning(
        dbt_project: DbtProject, spark_sql: SparkSql) -> None:
    """A misspelt app (or a list the environment passed as one name) makes a run process
    nothing while its progress moves past the window: the end hook says so, naming the
    apps the window held."""
    spark_sql.create_table(
        f"{dbt_project.schema}.events", EVENT_COLUMNS,
        [event("e1", "s1", "2021-01-01 10:00:00"), event("e2", "s1", "2021-01-01 10:05:00")])
    dbt_project.default_vars.update(
        {"spark_incremental__start_date": "2021-01-01", "spark_incremental__now": "2021-01-10 00:00:00"})
    result = dbt_project.run("run", vars={"spark_incremental__app_ids": "web;mob"})
    warnings = [line for line in result.lines if "matched none of the" in line]
    assert len(warnings) == 1, result.tail(20)
    assert "spark_incremental__app_ids = [web;mob] matched none of the 2 events of this run's window" in warnings[0]
    assert "(app_id there: app)" in warnings[0] and "then restate this range" in warnings[0], warnings[0]


def test_app_ids_that_match_no_new_event_are_a_warning_and_lose_nothing(
        dbt_project: DbtProject, spark_sql: SparkSql) -> None:
    """On a standard run with a load watermark, a misspelt app makes the nothing-new rule
    skip the run: nothing is lost (progress stays), and the rule's own query (no extra
    statement) finds a newer event of another app, which the warning names."""
    events = f"{dbt_project.schema}.events"
    spark_sql.create_table(
        events, EVENT_COLUMNS, [event("e1", "s1", "2021-01-01 10:00:00"), event("e2", "s1", "2021-01-01 10:05:00")])
    dbt_project.default_vars.update(
        {"spark_incremental__start_date": "2021-01-01", "spark_incremental__now": "2021-01-10 00:00:00"})
    dbt_project.run("run", vars={"spark_incremental__app_ids": "app"})
    before = manifest(dbt_project, spark_sql)
    assert before and set(before.values()) == {"2021-01-01 10:05:00"}, before
    spark_sql.insert_rows(events, EVENT_COLUMNS, [event("e3", "s2", "2021-01-01 11:00:00")])

    result = dbt_project.run("run", vars={"spark_incremental__app_ids": "web mob"})
    warnings = [line for line in result.lines if "matched none of the events newer than" in line]
    assert len(warnings) == 1, result.tail(20)
    assert ("spark_incremental__app_ids = [web mob] matched none of the events newer than last_success"
            " '2021-01-01 10:05:00' (app_id there: 'app', maybe more)") in warnings[0], warnings[0]
    assert "no event is lost" in warnings[0], warnings[0]
    assert manifest(dbt_project, spark_sql) == before

    # the var fixed: the run processes the new event
    result = dbt_project.run("run", vars={"spark_incremental__app_ids": "app"})
    assert not [line for line in result.lines if "matched none of the" in line], result.tail(20)
    assert set(manifest(dbt_project, spark_sql).values()) == {"2021-01-01 11:00:00"}

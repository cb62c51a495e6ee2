# The README's two commands are `make demo` and `make test`; everything else is a helper target.
#
# Installs are locked: requirements.lock pins every distribution the suite last passed with (torch
# included) and is applied to every install as pip constraints (`pip install -c`). After installing,
# the venv's packages are compared with the lock line by line, so a stale lock or a drifted venv is an
# error, not a silent difference. `make lock` rewrites the lock from the newest versions the
# pyproject ranges allow; `make test-latest` runs the suite on those newest versions in a venv of its
# own, so drift shows up there and not as a red main.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
LOCK   := requirements.lock
# torch goes in first, pinned to the CPU build on the machine's disk, so no dependency resolves it to
# the multi-GB CUDA build; keep it equal to the lock's torch line.
TORCH  := torch==2.13.0
PIP     = python -m pip install --quiet --disable-pip-version-check
# every plugin distribution in the repo (each has its own pyproject.toml)
PLUGINS := $(sort $(dir $(wildcard steb_models_stylometry/pyproject.toml steb_datasets_pan/pyproject.toml plugins/*/pyproject.toml examples/*/pyproject.toml)))
# optional extras the test suite exercises (installed with their plugin)
EXTRAS_steb_scorers := [neural,learned]
EDITABLES = -e ".[dev]" $(foreach p,$(PLUGINS),-e "./$(p)$(EXTRAS_$(notdir $(patsubst %/,%,$(p))))")
DEMO_ENCODER ?= function-words
DEMO_OUT     ?= steb-results/demo

.PHONY: setup browser demo lint typecheck test test-cpus lock test-latest check-reference-scorers clean
.DEFAULT_GOAL := demo

# One install step, redone when the lock or any pyproject changes.
$(VENV)/.installed: $(LOCK) pyproject.toml $(addsuffix pyproject.toml,$(PLUGINS)) tools/freeze-env
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/$(PIP) -c $(LOCK) "$(TORCH)"
	$(BIN)/$(PIP) -c $(LOCK) $(EDITABLES)
	@tools/freeze-env $(BIN)/python > $(VENV)/.frozen
	@grep -v '^#' $(LOCK) | diff -u --label "$(LOCK)" --label "installed in $(VENV)" - $(VENV)/.frozen > $(VENV)/.lockdiff \
	  || { cat $(VENV)/.lockdiff; echo "The installed packages differ from $(LOCK) (lines above: - locked, + installed)."; \
	       echo "A dependency changed? run 'make lock' and commit $(LOCK). An old venv? run 'make clean setup'."; exit 1; }
	touch $@

setup: $(VENV)/.installed

demo: setup  ## set up, run the demo suite, print and write the report
	$(BIN)/steb run --suite demo --encoder $(DEMO_ENCODER) --output $(DEMO_OUT)
	$(BIN)/steb report $(DEMO_OUT)

# The habits CONTRIBUTING states, checked by tools configured in pyproject.toml ([tool.ruff], [tool.mypy]).
lint: setup  ## ruff: lint rules, then the formatting (`$(BIN)/ruff format .` fixes the second)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: setup  ## mypy: steb_core and steb strictly, the plugin packages with the flags pyproject states
	$(BIN)/mypy

# The HTML report is checked in a real headless browser: Debian's chromium, installed where it is missing and
# apt-get can (root, or sudo without a password); elsewhere the script says what to run and the test skips.
browser:
	@tools/install-browser

# lint first (seconds) so a lint error fails fast, then the type check, then the suite; one command for CI. The
# kernel matrix (test-cpus below) is not part of it: it doubles the suite's time, past the 15-minute budget.
test: setup browser lint typecheck  ## set up, lint, type-check and run the whole test suite (pytest exit 5 = no tests = failure)
	@$(BIN)/python -m pytest -q; rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "pytest collected no tests: failing"; exit 1; fi; exit $$rc

# The tests whose figures go through torch's CPU kernels, under every ATEN_CPU_CAPABILITY this CPU executes
# (default, avx2, avx512), and those through numpy's BLAS under two OPENBLAS_CORETYPE kernels (tools/test-cpus,
# tests/support/kernels.py), so a float comparison that only one kernel satisfies fails here, not on a user's CPU.
test-cpus: setup
	$(BIN)/python tools/test-cpus --python $(BIN)/python

# Resolve the newest versions the pyproject ranges allow in a throw-away venv and write them as the lock.
lock:
	rm -rf .venv-lock
	$(PYTHON) -m venv .venv-lock
	.venv-lock/bin/$(PIP) "$(TORCH)"
	.venv-lock/bin/$(PIP) $(EDITABLES)
	{ echo "# steb's locked environment: every distribution 'make setup' installs, as pip constraints."; \
	  echo "# Written by 'make lock' ($$(.venv-lock/bin/python -c 'import platform; print("Python", platform.python_version())')); do not edit by hand."; \
	  tools/freeze-env .venv-lock/bin/python; } > $(LOCK)
	rm -rf .venv-lock
	@echo "wrote $(LOCK); run 'make test' to check the suite on it, then commit it"

# The suite on the newest allowed versions (no lock), in .venv-latest; prints what differs from the lock.
test-latest:
	rm -rf .venv-latest
	$(PYTHON) -m venv .venv-latest
	.venv-latest/bin/$(PIP) "$(TORCH)"
	.venv-latest/bin/$(PIP) --upgrade $(EDITABLES)
	@tools/freeze-env .venv-latest/bin/python > .venv-latest/.frozen
	@echo "== versions that differ from $(LOCK) (- locked, + latest) =="
	@grep -v '^#' $(LOCK) | diff - .venv-latest/.frozen | sed -n 's/^</-/p; s/^>/+/p' > .venv-latest/.drift; \
	if [ -s .venv-latest/.drift ]; then cat .venv-latest/.drift; else echo "(none: the lock is the newest allowed set)"; fi
	@.venv-latest/bin/python -m pytest -q; rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "pytest collected no tests: failing"; exit 1; fi; exit $$rc

# BLEURT-20 and COMET against bleurt-pytorch and unbabel-comet themselves, in a venv of their own
# (.venv-reference: transformers 4.x, as those packages pin); not part of `make test`.
check-reference-scorers: setup
	plugins/steb_scorers/reference/run_crosscheck.sh

clean:
	rm -rf $(VENV) .venv-lock .venv-latest .venv-reference steb-results .steb-cache

# The README's two commands are `make demo` and `make test`; everything else is a helper target.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
# every plugin distribution in the repo (each has its own pyproject.toml)
PLUGINS := $(sort $(dir $(wildcard steb_models_stylometry/pyproject.toml steb_datasets_pan/pyproject.toml plugins/*/pyproject.toml examples/*/pyproject.toml)))
# optional extras the test suite exercises (installed with their plugin)
EXTRAS_steb_scorers := [neural,learned]
DEMO_ENCODER ?= function-words
DEMO_OUT     ?= steb-results/demo

.PHONY: setup demo test clean
.DEFAULT_GOAL := demo

# One install step, redone when any pyproject changes. torch first, pinned to the CPU build on disk,
# so no dependency resolves it to the multi-GB CUDA build.
$(VENV)/.installed: pyproject.toml $(addsuffix pyproject.toml,$(PLUGINS))
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check "torch==2.13.0"
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e ".[dev]" $(foreach p,$(PLUGINS),-e "./$(p)$(EXTRAS_$(notdir $(patsubst %/,%,$(p))))")
	touch $@

setup: $(VENV)/.installed

demo: setup  ## set up, run the demo suite, print and write the report
	$(BIN)/steb run --suite demo --encoder $(DEMO_ENCODER) --output $(DEMO_OUT)
	$(BIN)/steb report $(DEMO_OUT)

test: setup  ## set up and run the whole test suite (pytest exit 5 = no tests = failure)
	@$(BIN)/python -m pytest -q; rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "pytest collected no tests: failing"; exit 1; fi; exit $$rc

clean:
	rm -rf $(VENV) steb-results .steb-cache

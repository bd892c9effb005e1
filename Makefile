# Two commands on a fresh machine: `make demo` and `make test`. Each makes its own virtual
# environment (.venv) the first time, and again only when pyproject.toml changes.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
# The stamp's name carries a checksum of pyproject.toml, so a change to the dependencies reinstalls.
STAMP  := $(VENV)/.installed-$(shell cksum pyproject.toml | cut -d' ' -f1)

# $(call apt_install,package): install a Debian package quietly, refreshing the package lists if needed.
apt_install = (apt-get install -y -qq $(1) || (apt-get update -qq && apt-get install -y -qq $(1))) >/dev/null 2>&1
can_apt := [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1

.PHONY: demo test exercise docs serve figures gpu-check setup graphviz clean

demo: setup
	@$(BIN)/python -m minitriton demo

test: setup
	@$(BIN)/python -m pytest -q

# `make exercise CH=4` runs the tests of chapter 4's exercises (EX=2: exercise 4.2 only; no CH: all)
# on your copies of the stubs in my_exercises/, made the first time. `make test` never reads them.
chapter := $(if $(CH),$(shell printf %02d $(CH))_*,[0-9][0-9]_*)
exercise_tests := $(wildcard exercises/$(chapter)/test_ex$(or $(EX),*)_*.py)

exercise: setup
	@[ -n "$(exercise_tests)" ] || { echo "no exercise matches CH=$(CH) EX=$(EX)"; exit 1; }
	@echo "testing your copies in my_exercises/ (edit them there; the stubs in exercises/ stay as they are)"
	@$(BIN)/python -m pytest -q $(exercise_tests)

docs: setup
	@NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --quiet
	@echo "the book is in site/index.html (or run: $(BIN)/mkdocs serve)"

serve: setup
	@NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs serve

figures: setup
	@$(BIN)/python scripts/figures.py

gpu-check:
	@if [ -f scripts/gpu_check.sh ]; then bash scripts/gpu_check.sh; \
	else echo "scripts/gpu_check.sh does not exist yet: nothing to run on the GPU"; exit 1; fi

setup: $(STAMP) graphviz

$(STAMP): pyproject.toml
	@echo "setting up $(VENV) (first run only; takes a minute or two)"
	@$(BIN)/python -m pip --version >/dev/null 2>&1 || { \
	  rm -rf $(VENV); \
	  $(PYTHON) -m venv $(VENV) >/dev/null 2>&1 || { \
	    if $(can_apt); then \
	      echo "installing Python's venv module with apt-get"; $(call apt_install,python3-venv); \
	      rm -rf $(VENV); $(PYTHON) -m venv $(VENV); \
	    else \
	      echo "$(PYTHON) -m venv failed: install Python's venv module (e.g. sudo apt-get install python3-venv)"; \
	      exit 1; \
	    fi; }; }
	@rm -f $(VENV)/.installed-*
	@$(BIN)/python -m pip install --disable-pip-version-check -e '.[dev]' > $(VENV)/install.log 2>&1 \
	  || { cat $(VENV)/install.log; echo "pip install failed (the log is in $(VENV)/install.log)"; exit 1; }
	@touch $@

# Graphviz's `dot` draws the book's figures (scripts/figures.py).
graphviz:
	@command -v dot >/dev/null 2>&1 || { \
	  if $(can_apt); then \
	    echo "installing Graphviz (dot) with apt-get"; \
	    $(call apt_install,graphviz) || echo "could not install Graphviz; the figures cannot be redrawn (the rest works)"; \
	  else \
	    echo "Graphviz's dot is missing: install it (sudo apt-get install graphviz, or brew install graphviz)"; \
	    echo "to redraw the figures; everything else works without it"; \
	  fi; }

clean:
	rm -rf $(VENV) site

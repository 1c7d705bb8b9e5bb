# The two commands in README.md: `make demo` and `make test`.
#
# Both need a Python >= 3.11. Amazon Linux 2023, the usual EKS bastion, ships 3.9 as python3, so
# the first of python3.13, python3.12, python3.11, python3 that is new enough is used (or
# PYTHON=/path/to/python). A .venv made by another Python is made again. pip runs only when
# pyproject.toml changed since the last install (a stamp in the venv), not on every command.
VENV ?= .venv
BIN := $(VENV)/bin
NEWEST_FIRST := python3.13 python3.12 python3.11 python3
ifeq ($(origin PYTHON),undefined)
PYTHON := $(firstword $(foreach p,$(NEWEST_FIRST),$(shell command -v $(p) >/dev/null 2>&1 && \
	$(p) -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null && echo $(p))))
export PYTHON
endif
STAMP := $(VENV)/.installed

.PHONY: demo test install install-test dist dist-check clean venv

# One line saying what to install, instead of pip's "requires a different Python" 50 s later.
define NO_PYTHON
karptui needs Python 3.11 or newer, and this machine has none on PATH (python3 is $(shell python3 -V 2>&1 | cut -d' ' -f2)). \
Install one -- Amazon Linux 2023: sudo dnf install -y python3.11; Debian/Ubuntu: sudo apt install python3.11 python3.11-venv -- \
then run make again (or give one: make demo PYTHON=/path/to/python3.11)
endef

venv:
	@test -n "$(PYTHON)" || { echo "$(NO_PYTHON)" >&2; exit 2; }
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null || \
		{ echo "karptui needs Python 3.11 or newer; $(PYTHON) is $$($(PYTHON) -V 2>&1)" >&2; exit 2; }
	@want=$$($(PYTHON) -c 'import sys; print(sys.version.split()[0])'); \
	have=$$($(BIN)/python -c 'import sys; print(sys.version.split()[0])' 2>/dev/null || true); \
	if [ "$$want" != "$$have" ]; then \
		if [ -n "$$have" ] || [ -e $(VENV) ]; then echo "$(VENV) was made by Python $${have:-?}: making it again with $$want"; fi; \
		rm -rf $(VENV); \
		$(PYTHON) -m venv $(VENV) || { echo "$(PYTHON) cannot make a venv: on Debian/Ubuntu, sudo apt install python3.11-venv (for your Python's version)" >&2; exit 2; }; \
		$(BIN)/python -m pip install --quiet --upgrade pip; \
	fi

$(STAMP)-run: pyproject.toml | venv
	$(BIN)/python -m pip install --quiet -e .
	@touch $@

$(STAMP)-test: pyproject.toml | venv
	$(BIN)/python -m pip install --quiet -e '.[test]'
	@touch $@ $(STAMP)-run

install: venv
	@$(MAKE) --no-print-directory $(STAMP)-run

install-test: venv
	@$(MAKE) --no-print-directory $(STAMP)-test

demo: install
	$(BIN)/karptui demo

test: install-test
	$(BIN)/python -m pytest

# A wheel, and one self-contained executable (PyInstaller, one file) that runs where no Python
# >= 3.11 is installed: built on the oldest glibc it should run on (it needs that glibc or newer).
# The executable carries textual-serve (its page and scripts are data files): `karptui serve` on a
# bastion needs nothing else.
dist: install
	$(BIN)/python -m pip install --quiet 'pyinstaller>=6.10,<7'
	$(BIN)/python -m pip install --quiet -e '.[serve]'
	rm -rf build/dist dist
	$(BIN)/python -m pip wheel --quiet --no-deps --wheel-dir dist .
	$(BIN)/pyinstaller --noconfirm --clean --onefile --name karptui --log-level WARN \
		--specpath build/dist --workpath build/dist --distpath dist \
		--collect-data karptui --collect-submodules karptui \
		--collect-submodules textual --collect-data textual --collect-submodules rich \
		--collect-submodules textual_serve --collect-data textual_serve \
		--add-data "$(CURDIR)/snapshots:karptui/_data/snapshots" --add-data "$(CURDIR)/themes:karptui/_data/themes" \
		karptui/frozen.py
	@ls -l dist

# The executable run as a user would: from outside the checkout, with no venv or Python on PATH.
dist-check: dist
	cd / && env -i HOME=/tmp PATH=/usr/bin:/bin TERM=dumb $(CURDIR)/dist/karptui --version
	cd / && env -i HOME=/tmp PATH=/usr/bin:/bin TERM=dumb $(CURDIR)/dist/karptui snapshot info topology-spread
	cd / && env -i HOME=/tmp PATH=/usr/bin:/bin TERM=dumb $(CURDIR)/dist/karptui simulate consolidation --consolidate >/dev/null
	# textual-serve and aiohttp are in: serve gets as far as the (missing) snapshot
	cd / && env -i HOME=/tmp PATH=/usr/bin:/bin TERM=dumb $(CURDIR)/dist/karptui serve no-such.yaml 2>&1 | \
		grep -q 'no-such.yaml: no such file'

clean:
	rm -rf $(VENV) build dist *.egg-info

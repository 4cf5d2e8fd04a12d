# deskhand: the user's entry points. Every target installs what it needs and is safe to run again.
SHELL := /bin/bash
PY ?= python3
VENV := .venv
VPY := $(VENV)/bin/python
APT_PACKAGES := xvfb x11-utils x11-xserver-utils xauth xdotool openbox dbus dbus-x11 at-spi2-core \
  python3-gi python3-pyatspi gir1.2-gtk-3.0 gir1.2-atspi-2.0 mousepad libturbojpeg0 imagemagick \
  libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1 libxcb-image0 libxcb-render-util0 libxkbcommon-x11-0 \
  libxcb-xinerama0 libxcb-xkb1 libxcb-shape0 libxcb-randr0 libxcb-xfixes0 libegl1 libgl1 libfontconfig1 \
  libdbus-1-3 libglib2.0-0 fonts-dejavu-core xterm libseccomp2 \
  chromium firefox-esr libreoffice-writer libreoffice-calc libreoffice-impress libreoffice-gtk3 gnome-calculator \
  gnome-text-editor kcalc thunar galculator python3-tk x11-apps xclip xfce4-settings \
  kate dolphin gedit evince okular gimp jedit libatk-wrapper-java libatk-wrapper-java-jni vlc thunderbird \
  sway grim wtype wl-clipboard wayland-protocols libwayland-dev qtwayland5 tini kwin-wayland libxkbcommon0 gnome-shell pipewire wireplumber
PYTEST_ARGS ?=

.PHONY: deps apt venv constraints ts-client test matrix tasks check demo bench clean soak soak-fleet bench-fleet

deps: apt venv ts-client

apt:
	@missing=$$(for p in $(APT_PACKAGES); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q "ok installed" || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "installing Debian packages:" $$missing; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $$SUDO apt-get -o DPkg::Lock::Timeout=900 install -y -qq --no-install-recommends $$missing; \
	fi

# pyproject.toml holds ranges (what deskhand works with); constraints.txt pins the exact versions
# that make and CI test. Refresh it with `make constraints` after changing a range.
$(VENV)/.installed: pyproject.toml constraints.txt
	@[ -x $(VPY) ] || $(PY) -m venv $(VENV)
	$(VPY) -m pip install -q --upgrade pip
	$(VPY) -m pip install -q -c constraints.txt -e '.[dev,bench,images,ray]'
	@touch $@

constraints:
	{ echo "# Exact versions make and CI install (pip install -c constraints.txt); ranges are in pyproject.toml."; \
	  $(VPY) -m pip freeze --exclude-editable | grep -v '^deskhand'; } > constraints.txt

venv: $(VENV)/.installed

# The official MCP TypeScript SDK client for tests/server/test_ts_client.py (versions pinned by
# tests/ts_client/package-lock.json); without npm that test is skipped and says why.
TS_CLIENT := tests/ts_client
$(TS_CLIENT)/node_modules/.installed: $(TS_CLIENT)/package.json $(TS_CLIENT)/package-lock.json
	@if command -v npm >/dev/null; then \
	  cd $(TS_CLIENT) && npm ci --no-audit --no-fund --loglevel=error && touch node_modules/.installed; \
	else echo "npm not found: tests/server/test_ts_client.py will be skipped"; fi

ts-client: $(TS_CLIENT)/node_modules/.installed

test: deps
	$(VPY) -m pytest $(PYTEST_ARGS)

# The real-app matrix alone; its table goes into README.md (between the matrix markers).
matrix: deps
	$(VPY) -m pytest tests/realapps --matrix-report out/matrix.md $(PYTEST_ARGS)
	$(VPY) tests/matrix_report.py README.md out/matrix.md

# Many clients at once for SOAK_S seconds, then SOAK_CELLS cells in one session (issue 29); the
# figures go to out/soak.md for the README.
SOAK_S ?= 600
SOAK_CELLS ?= 10000
# SOAK_UNTIL (a Unix time, optional): no cell of the 10,000 starts after it; the figures so far are reported.
SOAK_UNTIL ?=
soak: deps
	rm -f out/soak.md
	DESKHAND_SOAK_S=$(SOAK_S) DESKHAND_SOAK_CELLS=$(SOAK_CELLS) DESKHAND_SOAK_UNTIL=$(SOAK_UNTIL) DESKHAND_SOAK_REPORT=out/soak.md \
	  $(VPY) -m pytest -s --timeout=0 tests/faults/test_load.py tests/faults/test_soak_memory.py $(PYTEST_ARGS)

# The task suite alone (tests/tasks: OSWorld-style tasks solved through the js tool; make test runs
# it too); its solved counts per app go into README.md (between the tasks markers).
tasks: deps
	$(VPY) -m pytest tests/tasks --task-report out/tasks.md $(PYTEST_ARGS)
	$(VPY) tests/matrix_report.py README.md out/tasks.md tasks

check: venv
	$(VENV)/bin/ruff check src tests bench
	$(VENV)/bin/ruff format --check src tests bench
	$(VENV)/bin/mypy
	$(VENV)/bin/mypy --platform darwin src/deskhand/backends/macos
	$(VENV)/bin/lint-imports --no-logo

demo: deps
	$(VPY) -m deskhand.demo

# BENCH_BASE=<git revision or src dir>: the agent-path bench also runs that source, side by side,
# for a before/after table (default: main before issue 18's drag, typing and screenshot cuts;
# BENCH_BASE= runs deskhand alone)
BENCH_BASE ?= 59288ed
bench: deps
	DESKHAND_BENCH_BASE=$(BENCH_BASE) $(VPY) -m bench

# 200 lease -> act -> reset cycles on a local two-node Ray pool of 4 desktops; every audit must find 0 leaks.
FLEET_SOAK_CYCLES ?= 200
soak-fleet: deps
	DESKHAND_FLEET_SOAK=$(FLEET_SOAK_CYCLES) $(VPY) -m pytest tests/fleet/test_pool.py -k soak -x -q -s $(PYTEST_ARGS)

# The fleet's figures: lease and reset hand-off times, rebuild, memory per desktop, a pod's start-to-ready.
bench-fleet: deps
	$(VPY) -m bench fleet

clean:
	rm -rf $(VENV) out build .mypy_cache .ruff_cache .pytest_cache $(TS_CLIENT)/node_modules .import_linter_cache

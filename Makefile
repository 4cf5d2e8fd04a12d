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
  chromium firefox-esr libreoffice-writer libreoffice-calc libreoffice-gtk3 gnome-calculator \
  gnome-text-editor kcalc thunar galculator python3-tk x11-apps
PYTEST_ARGS ?=

.PHONY: deps apt venv test matrix check demo bench clean

deps: apt venv

apt:
	@missing=$$(for p in $(APT_PACKAGES); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q "ok installed" || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "installing Debian packages:" $$missing; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $$SUDO apt-get -o DPkg::Lock::Timeout=900 install -y -qq --no-install-recommends $$missing; \
	fi

$(VENV)/.installed: pyproject.toml
	@[ -x $(VPY) ] || $(PY) -m venv $(VENV)
	$(VPY) -m pip install -q --upgrade pip
	$(VPY) -m pip install -q -e '.[dev,bench]'
	@touch $@

venv: $(VENV)/.installed

test: deps
	$(VPY) -m pytest $(PYTEST_ARGS)

# The real-app matrix alone; its table goes into README.md (between the matrix markers).
matrix: deps
	$(VPY) -m pytest tests/realapps --matrix-report out/matrix.md $(PYTEST_ARGS)
	$(VPY) tests/matrix_report.py README.md out/matrix.md

check: venv
	$(VENV)/bin/ruff check src tests bench
	$(VENV)/bin/ruff format --check src tests bench
	$(VENV)/bin/mypy
	$(VENV)/bin/mypy --platform darwin src/deskhand/backends/macos
	$(VENV)/bin/lint-imports --no-logo

demo: deps
	$(VPY) -m deskhand.demo

bench: deps
	$(VPY) -m bench

clean:
	rm -rf $(VENV) out build .mypy_cache .ruff_cache .pytest_cache .import_linter_cache

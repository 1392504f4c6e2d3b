# Fieldpass build and run entry points (GNU make).
#
#   make deps    system libraries (only if missing) and the Python venv for e2e tests
#   make build   debug build -> .build/debug/fieldpass
#   make run     local development: dev key, mock IdP on :9400, then `fieldpass serve`
#   make test    swift test, then the end-to-end suite (Tests/e2e) against the real binary
#   make e2e     only the end-to-end suite

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := build

SWIFT ?= $(shell command -v swift 2>/dev/null || echo /opt/swift/usr/bin/swift)
PYTHON ?= python3

APT_PACKAGES := libjwt-dev libssl-dev libsqlite3-dev pkg-config

VENV := .venv
VENV_PY := $(VENV)/bin/python
REQUIREMENTS := Tests/e2e/requirements.txt
VENV_STAMP := $(VENV)/.requirements-installed

BIN := .build/debug/fieldpass
CONFIG ?= Config/fieldpass.yaml
KEYS_DIR ?= Keys
IDP_HOST ?= 127.0.0.1
IDP_PORT ?= 9400

# Client secret for the local mock IdP (it accepts any secret). Never a real one.
export DEV_IDP_CLIENT_SECRET ?= fieldpass-local-dev-secret
# Secret of the development config's `backend` service account. Never a real one.
export DEV_BACKEND_SECRET ?= fieldpass-local-backend-secret

.PHONY: deps system-deps venv build run test swift-test e2e clean

deps: system-deps venv

system-deps:
	@if ! dpkg -s $(APT_PACKAGES) >/dev/null 2>&1; then \
	  if [ "$$(id -u)" -eq 0 ]; then SUDO=""; \
	  elif command -v sudo >/dev/null 2>&1; then SUDO="sudo"; \
	  else echo "error: missing $(APT_PACKAGES) and neither root nor sudo available" >&2; exit 1; fi; \
	  echo "Installing $(APT_PACKAGES)"; \
	  $$SUDO apt-get update; \
	  $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y $(APT_PACKAGES); \
	fi

venv: $(VENV_STAMP)

# Reinstalled only when the requirements file is newer than the stamp.
$(VENV_STAMP): $(REQUIREMENTS)
	@if [ ! -x $(VENV_PY) ]; then $(PYTHON) -m venv $(VENV); fi
	$(VENV_PY) -m pip install --disable-pip-version-check -q -r $(REQUIREMENTS)
	@touch $@

build: system-deps
	$(SWIFT) build

run: deps build
	@if [ ! -f "$(CONFIG)" ]; then echo "error: config file $(CONFIG) not found" >&2; exit 1; fi
	@if ! compgen -G "$(KEYS_DIR)/*.pem" >/dev/null; then \
	  echo "No signing key in $(KEYS_DIR)/, generating a development key"; \
	  $(BIN) keys generate --config "$(CONFIG)"; \
	fi
	@if $(VENV_PY) -c "import socket; socket.create_connection(('$(IDP_HOST)', $(IDP_PORT)), timeout=1)" 2>/dev/null; then \
	  echo "error: port $(IDP_PORT) is already in use; stop what listens there or set IDP_PORT (and the config's issuer)" >&2; \
	  exit 1; \
	fi
	@$(VENV_PY) -m oidc_provider_mock --host $(IDP_HOST) --port $(IDP_PORT) & idp_pid=$$!; \
	trap 'kill $$idp_pid 2>/dev/null || true; wait $$idp_pid 2>/dev/null || true' EXIT; \
	trap 'exit 130' INT; trap 'exit 143' TERM; \
	for _ in $$(seq 1 100); do \
	  if $(VENV_PY) -c "import urllib.request; urllib.request.urlopen('http://$(IDP_HOST):$(IDP_PORT)/.well-known/openid-configuration', timeout=1)" 2>/dev/null; then break; fi; \
	  if ! kill -0 $$idp_pid 2>/dev/null; then echo "error: the development IdP did not start" >&2; exit 1; fi; \
	  sleep 0.2; \
	done; \
	echo "Development IdP: http://$(IDP_HOST):$(IDP_PORT) (sign in with any email address)"; \
	$(BIN) serve --config "$(CONFIG)"

# Both suites run even if the first fails; the target fails if either did.
test: deps build
	@status=0; \
	$(SWIFT) test || status=$$?; \
	FIELDPASS_BIN="$(CURDIR)/$(BIN)" $(VENV_PY) -m pytest -q Tests/e2e || status=$$?; \
	exit $$status

swift-test: system-deps
	$(SWIFT) test

e2e: deps build
	FIELDPASS_BIN="$(CURDIR)/$(BIN)" $(VENV_PY) -m pytest -q Tests/e2e

clean:
	$(SWIFT) package clean
	rm -rf $(VENV)

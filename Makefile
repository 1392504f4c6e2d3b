# Fieldpass build and run entry points (GNU make).
#
#   make deps    system libraries and the tests' tools, headless Chromium among them (only if
#                missing), and the Python venv for e2e tests
#   make build   debug build -> .build/debug/fieldpass
#   make run     local development: dev key, mock IdP on :9400, then `fieldpass serve`
#   make run-cluster  the same with a throw-away PostgreSQL and two instances (:8080, :8081);
#                it prints the line that gives the CLI that PostgreSQL
#   make test    swift test, then the end-to-end suite (Tests/e2e) against the real binary
#   make check   the inner loop: build, then every Swift test (rules, stores on both databases,
#                routes, the client library) against a throw-away PostgreSQL
#   make swift-test  the same Swift tests, after installing what is missing
#   make format  formats the Swift sources (swift-format, .swift-format); make test checks it
#   make e2e     only the end-to-end suite
#   make bench   release build, then every performance figure on both stores (Benchmarks/)
#   make bench-scim  release build, then how one company's big SCIM change holds up another's
#   make startup-order  lists again the functions a start runs, which the linker puts side by side

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := build

SWIFT ?= $(shell command -v swift 2>/dev/null || echo /opt/swift/usr/bin/swift)
PYTHON ?= python3

# wrk is the load generator of `make bench`.
APT_PACKAGES := libjwt-dev libssl-dev libqrencode-dev libsqlite3-dev pkg-config postgresql wrk
# What only the tests need, so `make run` and `make bench` do not install it: the real
# browser of the e2e suite (Selenium drives it through chromedriver), the QR code reader
# of the Swift tests (zbarimg) with the SVG-to-PNG converter it reads through (rsvg-convert),
# Apache with mod_oauth2, which the e2e suite runs with Docs/backend.md's configuration
# for DPoP-bound tokens in front of a sync server (apache2-bin comes with it), and nginx,
# which it runs with Docs/examples/nginx-fieldpass.conf in front of two instances.
TEST_PACKAGES := chromium chromium-driver zbar-tools librsvg2-bin libapache2-mod-oauth2 nginx

VENV := .venv
VENV_PY := $(VENV)/bin/python
REQUIREMENTS := Tests/e2e/requirements.txt
VENV_STAMP := $(VENV)/.requirements-installed

BIN := .build/debug/fieldpass
# SwiftPM plans the whole build again whenever its environment differs from the previous
# build's (12-18 s here, minutes under load): `make run` started by a test, with its own
# ports and paths in the environment, re-planned every time. Builds see only PATH and HOME.
# No index store: only an editor reads it (sourcekit-lsp's background indexing builds its
# own), and writing it made every compile a tenth slower (swift-nio-ssl's BoringSSL, 406
# files: 89.5 s with it, 79.5 s without).
SWIFT_BUILD = env -i PATH="$$PATH" HOME="$$HOME" $(SWIFT) build --disable-index-store
RELEASE_BIN := .build/release/fieldpass
BENCH := Benchmarks/bench.py
# The benchmark's short mode on the debug build: `make bench-short`, and the last step of `make test`.
BENCH_SHORT = FIELDPASS_BIN="$(CURDIR)/$(BIN)" $(VENV_PY) $(BENCH) --short --build-config debug
# One company's big SCIM change beside another company's requests (Benchmarks/README.md).
SCIM_STALL := Benchmarks/scim_stall.py
SCIM_STALL_SHORT = $(VENV_PY) $(SCIM_STALL) --short --bin "$(CURDIR)/$(BIN)"
# One company's crew signing in with badges beside another company's requests.
BADGE_STALL := Benchmarks/badge_stall.py
BADGE_STALL_SHORT = $(VENV_PY) $(BADGE_STALL) --short --bin "$(CURDIR)/$(BIN)"
CONFIG ?= Config/fieldpass.yaml
KEYS_DIR ?= Keys
IDP_HOST ?= 127.0.0.1
IDP_PORT ?= 9400
# The throw-away PostgreSQL of `make test` (`make run-cluster` uses 55440).
PG_TEST_PORT ?= 55433
E2E_STORE ?= sqlite

# Client secret for the local mock IdP (it accepts any secret). Never a real one.
export DEV_IDP_CLIENT_SECRET ?= fieldpass-local-dev-secret
# Secret of the development config's `backend` service account. Never a real one.
export DEV_BACKEND_SECRET ?= fieldpass-local-development-backend-secret
# SCIM token that `make run` and `make run-cluster` give the development config's `dev`
# environment. Never a real one. Only the servers they start take SCIM, so the CLI in
# another terminal needs no token.
export DEV_SCIM_TOKEN ?= fieldpass-local-development-scim-token
RUN_SCIM = ENVIRONMENTS_DEV_SCIM_TOKEN_ENV=DEV_SCIM_TOKEN
# Password of the throw-away PostgreSQL clusters. Never a real one.
export FIELDPASS_PG_PASSWORD ?= fieldpass-local-pg

.PHONY: deps system-deps test-deps venv build run run-cluster check-ports check-cluster-ports keys test check swift-test format format-check e2e clean

deps: system-deps test-deps venv

# $(call apt_install,PACKAGES): installs PACKAGES with apt-get unless all are installed.
define apt_install
	@if ! dpkg -s $(1) >/dev/null 2>&1; then \
	  if [ "$$(id -u)" -eq 0 ]; then SUDO=""; \
	  elif command -v sudo >/dev/null 2>&1; then SUDO="sudo"; \
	  else echo "error: missing $(1) and neither root nor sudo available" >&2; exit 1; fi; \
	  echo "Installing $(1)"; \
	  $$SUDO apt-get update; \
	  $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y $(1); \
	fi
endef

system-deps:
	$(call apt_install,$(APT_PACKAGES))

test-deps:
	$(call apt_install,$(TEST_PACKAGES))

venv: $(VENV_STAMP)

# Reinstalled only when the requirements file is newer than the stamp.
$(VENV_STAMP): $(REQUIREMENTS)
	@if [ ! -x $(VENV_PY) ]; then $(PYTHON) -m venv $(VENV); fi
	$(VENV_PY) -m pip install --disable-pip-version-check -q -r $(REQUIREMENTS)
	@touch $@

build: system-deps
	$(SWIFT_BUILD)

run: check-ports system-deps venv build keys
	@$(RUN_SCIM) BIN=$(BIN) CONFIG=$(CONFIG) VENV_PY=$(VENV_PY) IDP_HOST=$(IDP_HOST) IDP_PORT=$(IDP_PORT) scripts/run-local single

# Two instances on one throw-away PostgreSQL (see the README's "Several instances").
run-cluster: check-cluster-ports system-deps venv build keys
	@$(RUN_SCIM) BIN=$(BIN) CONFIG=$(CONFIG) VENV_PY=$(VENV_PY) IDP_HOST=$(IDP_HOST) IDP_PORT=$(IDP_PORT) scripts/run-local cluster

check-ports check-cluster-ports:
	@CONFIG=$(CONFIG) IDP_HOST=$(IDP_HOST) IDP_PORT=$(IDP_PORT) scripts/run-local check $(if $(findstring cluster,$@),cluster,single)

keys:
	@if [ ! -f "$(CONFIG)" ]; then echo "error: config file $(CONFIG) not found" >&2; exit 1; fi
	@if ! compgen -G "$(KEYS_DIR)/*.pem" >/dev/null; then \
	  echo "No signing key in $(KEYS_DIR)/, generating a development key"; \
	  $(BIN) keys generate --config "$(CONFIG)"; \
	fi

# Starts the throw-away PostgreSQL of the Swift store tests and the e2e suite, exports where
# it is, and removes it when the recipe's shell exits.
define with_test_postgres
scripts/postgres-cluster destroy $(PG_TEST_PORT); scripts/postgres-cluster start $(PG_TEST_PORT) >/dev/null; \
trap 'scripts/postgres-cluster destroy $(PG_TEST_PORT)' EXIT; \
export FIELDPASS_TEST_POSTGRES_URL=postgres://fieldpass@127.0.0.1:$(PG_TEST_PORT)/postgres; \
export FIELDPASS_TEST_POSTGRES_PASSWORD=$(FIELDPASS_PG_PASSWORD)
endef

# Every suite runs even if an earlier one fails; the target fails if any did. Store tests
# and the e2e suite run on SQLite and on a throw-away PostgreSQL, which must start; the
# benchmark's short mode runs too, so that `make bench` cannot rot.
# One build makes the binary and the tests: building them in two steps costs a second
# planning and link. What only the tests need (the browser, the venv) is installed while it
# builds: the build needs none of it.
# Then two lanes, side by side: the Swift tests and the e2e pass on SQLite, and the e2e pass
# on PostgreSQL, the longer. The two e2e passes together keep the machine about two thirds
# busy (their servers, browsers and IdPs mostly wait on one another), so the Swift tests
# (40 s) fit beside the PostgreSQL pass rather than before both. `swift test` runs with the test database's
# variables in its environment, so SwiftPM plans the next build again (see SWIFT_BUILD): the
# plain build after it does that, and the build of `make run` in an e2e test of the SQLite
# pass then finds nothing to do (the PostgreSQL pass runs no build). The short benchmarks
# (1 min) follow whichever lane ends first, beside the other, rather than after both: their
# figures are only read, not judged (the goals are for `make bench`, on a quiet machine).
# Each part's output follows when all have ended.
test: system-deps
	@deps_log=$$(mktemp); \
	$(MAKE) --no-print-directory test-deps venv > "$$deps_log" 2>&1 & deps=$$!; \
	build_status=0; $(SWIFT_BUILD) --build-tests || build_status=$$?; \
	deps_status=0; wait $$deps || deps_status=$$?; \
	cat "$$deps_log"; rm -f "$$deps_log"; \
	[ $$build_status = 0 ] && [ $$deps_status = 0 ]
	@$(with_test_postgres); \
	status=0; \
	$(MAKE) --no-print-directory format-check || status=$$?; \
	e2e_logs=$$(mktemp -d); \
	run_swift_tests() { \
	  local failed=0; \
	  { $(SWIFT) test --skip-build || failed=1; $(SWIFT_BUILD) >/dev/null || failed=1; } > "$$e2e_logs/swift.log" 2>&1; \
	  echo $$failed > "$$e2e_logs/swift.status"; \
	}; \
	run_e2e() { \
	  local failed=0; \
	  FIELDPASS_E2E_STORE=$$1 FIELDPASS_BIN="$(CURDIR)/$(BIN)" $(VENV_PY) -m pytest -q -p no:cacheprovider \
	    --basetemp="$$e2e_logs/tmp-$$1" Tests/e2e > "$$e2e_logs/$$1.log" 2>&1 || failed=1; \
	  echo $$failed > "$$e2e_logs/$$1.status"; \
	}; \
	run_bench() { \
	  local failed=0; \
	  { $(BENCH_SHORT) || failed=1; $(SCIM_STALL_SHORT) || failed=1; $(BADGE_STALL_SHORT) || failed=1; } > "$$e2e_logs/bench.log" 2>&1; \
	  echo $$failed > "$$e2e_logs/bench.status"; \
	}; \
	echo "== swift test then e2e on sqlite, beside e2e on postgres; then bench short beside the lane still running"; \
	{ run_swift_tests; run_e2e sqlite; } & run_e2e postgres & \
	wait -n; run_bench; wait; \
	for part in swift sqlite postgres bench; do \
	  case $$part in \
	    swift) echo "== swift test";; \
	    bench) echo "== bench, short mode (the harness runs; goals are for make bench)";; \
	    *) echo "== e2e on $$part";; \
	  esac; \
	  cat "$$e2e_logs/$$part.log"; \
	  [ "$$(cat "$$e2e_logs/$$part.status")" = 0 ] || status=1; \
	done; \
	rm -rf "$$e2e_logs"; \
	exit $$status

swift-test: system-deps test-deps check

SWIFT_SOURCES := Sources Tests Package.swift

# The toolchain's swift-format, with the settings in .swift-format.
format:
	$(SWIFT) format format --in-place --recursive $(SWIFT_SOURCES)

format-check:
	@$(SWIFT) format lint --strict --recursive $(SWIFT_SOURCES) || { echo "error: run 'make format'" >&2; exit 1; }

# No dependency checks: for a machine set up once already. The plain build at the end
# leaves the build planned as `make run` plans it, so that `make run` finds nothing to do.
check:
	@$(with_test_postgres); \
	$(SWIFT_BUILD) --build-tests && $(SWIFT) test --skip-build && $(SWIFT_BUILD) >/dev/null

# The e2e suite on one store: make e2e E2E_STORE=postgres (needs FIELDPASS_TEST_POSTGRES_URL).
e2e: deps build
	FIELDPASS_E2E_STORE=$(E2E_STORE) FIELDPASS_BIN="$(CURDIR)/$(BIN)" $(VENV_PY) -m pytest -q Tests/e2e

clean:
	$(SWIFT) package clean
	rm -rf $(VENV)

# ---- benchmarks (Benchmarks/README.md): figures and goals are printed and written to
# bench-results/; a missed goal does not fail the target, a broken harness does.

.PHONY: bench bench-short bench-scim bench-badges startup-order

# Full run on a release build, both stores: ~10 s per figure, 10,000 sockets.
bench: system-deps venv
	$(SWIFT_BUILD) -c release
	FIELDPASS_BIN="$(CURDIR)/$(RELEASE_BIN)" $(VENV_PY) $(BENCH) --build-config release

# Short run on the debug build, both stores: every figure, well under a minute per store.
bench-short: system-deps venv build
	$(BENCH_SHORT)

# The functions a release instance runs from its start to its first idle seconds, on both
# stores, which the linker puts side by side (Linker/startup-order.txt, scripts/startup-order);
# then the release binary linked again with them. Run it after changing what starts.
startup-order: system-deps
	$(call apt_install,valgrind binutils gcc)
	$(SWIFT_BUILD) -c release --product fieldpass
	scripts/startup-order $(RELEASE_BIN)
	rm -f $(RELEASE_BIN)
	$(SWIFT_BUILD) -c release --product fieldpass

# One company's SCIM PATCHes and role-group rename beside another company's requests, on a
# release build: 10,000 members, three rounds.
bench-scim: system-deps venv
	$(SWIFT_BUILD) -c release
	$(VENV_PY) $(SCIM_STALL) --bin "$(CURDIR)/$(RELEASE_BIN)"

# A crew of 24 signing in with badge and PIN at once beside another company's requests, then an
# admin's eight parallel PIN resets, on a release build: three rounds each.
bench-badges: system-deps venv
	$(SWIFT_BUILD) -c release
	$(VENV_PY) $(BADGE_STALL) --bin "$(CURDIR)/$(RELEASE_BIN)"
	$(VENV_PY) $(BADGE_STALL) --resets --bin "$(CURDIR)/$(RELEASE_BIN)"


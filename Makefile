# Salus: `make run` starts the daemon, `make test` runs every test, `make bench` measures,
# `make install PREFIX=~/.local` installs a release build (`make uninstall` removes it).
SHELL := /bin/bash
SWIFT ?= swift
PLUGINS := SalusCore SalusSleep SalusReproductive SalusMobility SalusVision SalusWheelchair \
	SalusVitals SalusNutrition SalusHearing SalusSymptoms SalusLab SalusMindfulness \
	SalusClinical
# Extra flags for every swift build (e.g. BUILD_FLAGS="--scratch-path .build-other").
BUILD_FLAGS ?=
DEBUG_BIN = $(shell $(SWIFT) build $(BUILD_FLAGS) --show-bin-path)
RELEASE_BIN = $(shell $(SWIFT) build $(BUILD_FLAGS) -c release --show-bin-path)
# What `make install` builds and installs: release (CONFIGURATION=debug only to try the install quickly).
CONFIGURATION ?= release
INSTALL_BIN = $(shell $(SWIFT) build $(BUILD_FLAGS) -c $(CONFIGURATION) --show-bin-path)
# Where swift-argument-parser's generate-manual plugin writes the manual pages (one folder per tool).
MANUALS = $(abspath $(INSTALL_BIN)/../..)/plugins/GenerateManual/outputs
PREFIX ?= /usr/local
DESTDIR ?=
PLUGIN_DIR := $(CURDIR)/.build/plugins
ARGS ?=
GRPC_PEER := Benchmarks/grpc-peer
GRPC_PEER_BIN = $(shell $(SWIFT) build -c release --package-path $(GRPC_PEER) --show-bin-path)

.PHONY: setup setup-run build run-build plugins run test fuzz bench soak release install uninstall generate check-generated clean

setup:
	@scripts/setup

setup-run:
	@scripts/setup --run

# Every product: the tools, salus-sync, the benchmarks and the soak.
build: setup
	$(SWIFT) build $(BUILD_FLAGS)

# Only what `make run` runs: salusd, salusctl, the bundled plugins and the example apps
# (SALUS_BUILD=run in Package.swift); the tests, salus-sync and the benchmarks are left for later.
run-build: setup-run
	@echo "make run: building salusd, salusctl, the plugins and the example apps (a first build takes about 5 minutes on 2 cores; later ones seconds)" >&2
	SALUS_BUILD=run $(SWIFT) build $(BUILD_FLAGS)

# The bundled plugins, gathered in one folder for --plugins-dir.
plugins: run-build
	@mkdir -p $(PLUGIN_DIR)
	@for p in $(PLUGINS); do cp -f "$(DEBUG_BIN)/lib$$p.so" $(PLUGIN_DIR)/; done

# Starts salusd in the foreground with the bundled plugins and the default paths.
run: plugins
	exec "$(DEBUG_BIN)/salusd" --plugins-dir $(PLUGIN_DIR) $(ARGS)

# First, in a second: docs/architecture.md's table of targets against Package.swift.
test: setup
	SWIFT="$(SWIFT)" scripts/check-architecture
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build
	SALUS_BIN_DIR="$(DEBUG_BIN)" .build-tools/python-client/bin/python -m pytest -q clients/python/tests

# libFuzzer harnesses with AddressSanitizer, each run SECONDS (default 30) over its seed corpus;
# HARNESSES="units cda" for some. Builds in .build-fuzz; see docs/reliability.md, "Fuzzing".
SECONDS ?= 30
HARNESSES ?=
fuzz: setup
	SWIFT="$(SWIFT)" scripts/fuzz $(SECONDS) $(HARNESSES)

# Release build of what the bench runs (not every dependency's tools); figures in .bench/results.json.
# QUICK=1 for a short run; ONLY=rpc|store|scale|statistics|import for one part. The scale store
# (20M samples; 2M with QUICK) is built once and kept under .bench/ (`make clean` removes it).
# The grpc-swift-2 peer the RPC figures are compared with is a package of its own (Benchmarks/grpc-peer,
# built into its own .build/), so that `make test` never builds it.
bench: setup
	@for product in salusd salusctl salus-bench $(PLUGINS); do $(SWIFT) build -c release --product $$product || exit 1; done
	$(SWIFT) build -c release --package-path $(GRPC_PEER)
	@mkdir -p .bench
	@rm -f .bench/results.json
	"$(RELEASE_BIN)/salus-bench" $(if $(QUICK),--quick) $(if $(ONLY),--only $(ONLY)) --output .bench/results.json \
		--grpc-peer "$(GRPC_PEER_BIN)/grpc-peer"

# Release build. 64 clients against one salusd for 60 s (CLIENTS=, DURATION= to change); KILLS=N runs
# the SIGKILL loop of the store's crash test N times instead (KILL_SECONDS=S stops it after S seconds).
# Prints PASS or FAIL; fails on FAIL.
CLIENTS ?= 64
DURATION ?= 60
soak: setup
	$(SWIFT) build $(BUILD_FLAGS) -c release --product salus-soak
	$(SWIFT) build $(BUILD_FLAGS) -c release --product $(if $(KILLS),salus-store-crashtest,salusd)
	$(if $(KILLS),,@for p in $(PLUGINS); do $(SWIFT) build $(BUILD_FLAGS) -c release --product $$p || exit 1; done)
	"$(RELEASE_BIN)/salus-soak" $(if $(KILLS),--kills $(KILLS) $(if $(KILL_SECONDS),--kill-seconds $(KILL_SECONDS)),--clients $(CLIENTS) --duration $(DURATION))

# The release build of what `make install` installs (SALUS_BUILD=install: salusd, salusctl,
# salus-sync, salus-notify and the plugins), with the compiler's progress, then the manual pages:
# swift-argument-parser's generate-manual plugin writes salusd.1, salusctl.1, salus-sync.1 and salus-notify.1 from
# the commands' definitions.
release: setup-run
	@echo "make install: [1/3] $(CONFIGURATION) build of salusd, salusctl, salus-sync, salus-notify and the plugins (a first release build takes about 20 minutes on 2 cores)" >&2
	SALUS_BUILD=install $(SWIFT) build $(BUILD_FLAGS) -c $(CONFIGURATION)
	@echo "make install: [2/3] manual pages" >&2
	SALUS_BUILD=install $(SWIFT) package $(BUILD_FLAGS) plugin generate-manual --configuration $(CONFIGURATION)

# Installs salusd, salusctl, the bundled plugins, the plugin header with salus-plugin.pc, the
# protos, manual pages and completions under $(DESTDIR)$(PREFIX); docs/install.md lists them.
install: release
	@echo "make install: [3/3] installing under $(DESTDIR)$(PREFIX)" >&2
	PREFIX="$(PREFIX)" DESTDIR="$(DESTDIR)" scripts/install install "$(INSTALL_BIN)" "$(MANUALS)"

# Removes exactly what `make install` wrote (its manifest, PREFIX/share/salus/install-manifest.txt).
uninstall:
	PREFIX="$(PREFIX)" DESTDIR="$(DESTDIR)" scripts/install uninstall

generate:
	scripts/generate-protos

check-generated:
	scripts/generate-protos --check

clean:
	rm -rf .build .bench $(GRPC_PEER)/.build

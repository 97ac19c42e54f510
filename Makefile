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

.PHONY: setup build plugins run test fuzz bench release install uninstall generate check-generated clean

setup:
	@scripts/setup

build: setup
	$(SWIFT) build

# The bundled plugins, gathered in one folder for --plugins-dir.
plugins: build
	@mkdir -p $(PLUGIN_DIR)
	@for p in $(PLUGINS); do cp -f "$(DEBUG_BIN)/lib$$p.so" $(PLUGIN_DIR)/; done

# Starts salusd in the foreground with the bundled plugins and the default paths.
run: plugins
	exec "$(DEBUG_BIN)/salusd" --plugins-dir $(PLUGIN_DIR) $(ARGS)

test: setup
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

# libFuzzer harnesses with AddressSanitizer, each run SECONDS (default 30) over its seed corpus;
# HARNESSES="units cda" for some. Builds in .build-fuzz; see docs/reliability.md, "Fuzzing".
SECONDS ?= 30
HARNESSES ?=
fuzz: setup
	SWIFT="$(SWIFT)" scripts/fuzz $(SECONDS) $(HARNESSES)

# Release build; figures in .bench/results.json. QUICK=1 for a short run; ONLY=rpc|store|statistics|import for one part.
bench: setup
	$(SWIFT) build -c release
	@mkdir -p .bench
	@rm -f .bench/results.json
	"$(RELEASE_BIN)/salus-bench" $(if $(QUICK),--quick) $(if $(ONLY),--only $(ONLY)) --output .bench/results.json

# The release build and the manual pages: swift-argument-parser's generate-manual plugin builds
# every product in release mode, then writes salusd.1 and salusctl.1 from the commands' definitions.
release: setup
	$(SWIFT) package $(BUILD_FLAGS) plugin generate-manual --configuration $(CONFIGURATION)

# Installs salusd, salusctl, the bundled plugins, the plugin header with salus-plugin.pc, the
# protos, manual pages and completions under $(DESTDIR)$(PREFIX); docs/install.md lists them.
install: release
	PREFIX="$(PREFIX)" DESTDIR="$(DESTDIR)" scripts/install install "$(INSTALL_BIN)" "$(MANUALS)"

# Removes exactly what `make install` wrote (its manifest, PREFIX/share/salus/install-manifest.txt).
uninstall:
	PREFIX="$(PREFIX)" DESTDIR="$(DESTDIR)" scripts/install uninstall

generate:
	scripts/generate-protos

check-generated:
	scripts/generate-protos --check

clean:
	rm -rf .build .bench

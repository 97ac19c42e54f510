# Salus: `make run` starts the daemon, `make test` runs every test, `make bench` measures.
SHELL := /bin/bash
SWIFT ?= swift
PLUGINS := SalusCore SalusSleep SalusReproductive SalusMobility SalusVision SalusWheelchair \
	SalusVitals SalusNutrition SalusHearing SalusSymptoms SalusLab SalusMindfulness \
	SalusClinical
DEBUG_BIN = $(shell $(SWIFT) build --show-bin-path)
RELEASE_BIN = $(shell $(SWIFT) build -c release --show-bin-path)
PLUGIN_DIR := $(CURDIR)/.build/plugins
ARGS ?=

.PHONY: setup build plugins run test bench generate check-generated clean

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

# Release build; figures in .bench/results.json. QUICK=1 for a short run; ONLY=rpc|store|statistics|import for one part.
bench: setup
	$(SWIFT) build -c release
	@mkdir -p .bench
	@rm -f .bench/results.json
	"$(RELEASE_BIN)/salus-bench" $(if $(QUICK),--quick) $(if $(ONLY),--only $(ONLY)) --output .bench/results.json

generate:
	scripts/generate-protos

check-generated:
	scripts/generate-protos --check

clean:
	rm -rf .build .bench

# Thin wrapper over CMake: `make run` and `make test` do all set-up themselves.
BUILD ?= build
JOBS ?= $(shell nproc)
SPEC ?= experiments/quickstart.toml
DEPS_STAMP := $(BUILD)/.deps-ok

.PHONY: all deps configure build test run clean

all: build

$(DEPS_STAMP): scripts/install-deps.sh
	bash scripts/install-deps.sh
	@mkdir -p $(BUILD) && touch $@

deps: $(DEPS_STAMP)

$(BUILD)/CMakeCache.txt: $(DEPS_STAMP)
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo

configure: $(BUILD)/CMakeCache.txt

build: configure
	cmake --build $(BUILD) -j $(JOBS)

test: build
	cd $(BUILD) && ctest --output-on-failure

run: build
	./$(BUILD)/powerzoo run $(SPEC)

clean:
	rm -rf $(BUILD)

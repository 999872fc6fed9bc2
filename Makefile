# Thin wrapper over CMake: `make run` and `make test` do all set-up themselves.
BUILD ?= build
JOBS ?= $(shell nproc)
SPEC ?= experiments/quickstart.toml
DEPS_STAMP := $(BUILD)/.deps-ok

.PHONY: all deps configure build python test run clean sanitize tsan fuzz benchmark \
        benchmark-report benchmark-slurm

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

# The Python module into $(BUILD)/python/powerzoo (PYTHONPATH=$(BUILD)/python /usr/bin/python3).
python: configure
	cmake --build $(BUILD) -j $(JOBS) --target python

test: build
	cd $(BUILD) && ctest --output-on-failure

run: build
	./$(BUILD)/powerzoo run $(SPEC)

# The benchmark suite (benchmarks/suite.toml): every learner at PowerZooJax's budget over 5 seeds
# and every baseline; finished run files are archived slim into benchmarks/results (committed)
# and docs/results.md is built from them. Days of CPU time: the sweeps resume, so stop and
# re-run at will. BENCH_JOBS trials run in parallel; `make benchmark-slurm` prints SLURM job-array
# scripts instead (SLURM_OPTS are passed to `powerzoo sweep --emit slurm`).
BENCH_RUNS ?= runs/benchmark
BENCH_JOBS ?= 1
SLURM_OPTS ?=
benchmark: build
	/usr/bin/python3 scripts/benchmark.py run --runs $(BENCH_RUNS) --jobs $(BENCH_JOBS)
	/usr/bin/python3 scripts/benchmark.py report

benchmark-report: build
	/usr/bin/python3 scripts/benchmark.py report

benchmark-slurm: build
	/usr/bin/python3 scripts/benchmark.py slurm --runs $(BENCH_RUNS) -- $(SLURM_OPTS)

# ASan + UBSan and TSan builds, each in its own directory, running the whole suite (ctest).
SAN_BUILD ?= build-asan
SAN_CTEST_ARGS ?=
TSAN_BUILD ?= build-tsan
SAN_ENV := ASAN_OPTIONS=detect_leaks=1:halt_on_error=1:abort_on_error=0 \
           UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
TSAN_ENV := TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1

sanitize: deps
	cmake -S . -B $(SAN_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPZ_SANITIZE=address,undefined
	cmake --build $(SAN_BUILD) -j $(JOBS)
	cd $(SAN_BUILD) && $(SAN_ENV) ctest --output-on-failure $(SAN_CTEST_ARGS)

tsan: deps
	cmake -S . -B $(TSAN_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPZ_SANITIZE=thread
	cmake --build $(TSAN_BUILD) -j $(JOBS)
	cd $(TSAN_BUILD) && $(TSAN_ENV) ctest --output-on-failure

# libFuzzer harnesses (clang-14): each runs FUZZ_SECONDS seconds from tests/fuzz/corpus/<name>.
FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 60
fuzz: deps
	bash scripts/install-deps.sh --fuzz
	CC=clang-14 CXX=clang++-14 cmake -S . -B $(FUZZ_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPZ_FUZZ=ON
	cmake --build $(FUZZ_BUILD) -j $(JOBS) --target fuzz_matpower fuzz_spec fuzz_profile fuzz_checkpoint
	bash tests/fuzz/run_fuzz.sh $(FUZZ_BUILD) $(FUZZ_SECONDS)

clean:
	rm -rf $(BUILD) $(SAN_BUILD) $(TSAN_BUILD) $(FUZZ_BUILD)

# bcastgen: build, test, install. See README.md.
#
# Settings; config.mak may override any of them. No trailing comments on
# assignments: make keeps the spaces before '#' in the value.
O = build
PREFIX = /usr/local
CC = cc
CFLAGS = -O2 -g
LDFLAGS =
LUA_CFLAGS = $(shell pkg-config --cflags lua5.4)
LUA_LIBS = $(shell pkg-config --libs lua5.4)
JOBS = $(shell nproc 2>/dev/null || echo 2)
PROVE_FLAGS = -j$(JOBS) --timer
# Debian packages that the build, the tests and the demo need; the
# firmware tests' cross compilers and emulators, and emscripten for the
# playground page (make playground, playground/playground.mk), are
# installed without their recommended packages (BIG_DEPS: about 1.4 GB
# and 0.8 GB that way).
DEPS = gcc g++ clang make cmake ninja-build pkg-config liblua5.4-dev perl python3-numpy \
	libclang-rt-14-dev valgrind libxnnpack-dev libpthreadpool-dev chromium libxml2-utils \
	fonts-wqy-microhei libomp-dev libgemmlowp-dev dpkg-dev
FW_DEPS = gcc-arm-none-eabi libnewlib-arm-none-eabi gcc-riscv64-unknown-elf \
	qemu-system-arm qemu-system-misc
PLAYGROUND_DEPS = emscripten
BIG_DEPS = $(FW_DEPS) $(PLAYGROUND_DEPS)
# make bench: its extra packages, the cases (ids of bench/cases.txt; empty:
# all) and the levels (O2: -O2; O3: -O3 -march=native; O3v3: -O3
# -march=x86-64-v3; empty: O2 O3, and O3v3 where native is x86-64-v4).
BENCH_DEPS = libxnnpack-dev libpthreadpool-dev gnuplot-nox valgrind python3-numpy
BENCH_CASES =
BENCH_LEVELS =
BENCH_FLAGS =
# make size: the firmware toolchains and emulators, the cases (ids of
# the seeds' kernels, of bench/cases.txt and of bench/size.py's own; empty:
# all), and more options of bench/size.py (--targets m4f,m55; --only-check).
SIZE_DEPS = gcc-arm-none-eabi libnewlib-arm-none-eabi gcc-riscv64-unknown-elf \
	qemu-system-arm qemu-system-misc
SIZE_CASES =
SIZE_FLAGS =
# make fuzz: seconds per harness, and the compiler with libFuzzer.
FUZZ_SECONDS = 60
FUZZ_CC = clang
-include config.mak

WARN = -Wall -Wextra -Wpedantic -Wshadow -Wmissing-prototypes -Wstrict-prototypes
ALL_CFLAGS = -std=c99 $(WARN) -Igen -I$(O) $(LUA_CFLAGS) $(CFLAGS)

GEN_SRCS = gen/main.c gen/cli.c gen/desc.c gen/fields.c gen/names.c gen/util.c \
	gen/shape.c gen/bcast.c gen/ops.c gen/expr_parse.c gen/expr_fold.c \
	gen/expr_check.c gen/expr.c gen/plan.c gen/lower.c gen/lhost.c gen/model.c gen/output.c \
	gen/spec.c gen/speclex.c gen/target.c gen/run.c gen/kernel.c gen/render.c \
	gen/write.c gen/explain.c gen/quant.c
CORE_OBJS = $(O)/obj/gen/util.o $(O)/obj/gen/shape.o $(O)/obj/gen/bcast.o \
	$(O)/obj/gen/ops.o $(O)/obj/gen/expr_parse.o $(O)/obj/gen/expr_fold.o \
	$(O)/obj/gen/expr_check.o $(O)/obj/gen/expr.o $(O)/obj/gen/plan.o $(O)/obj/gen/lower.o \
	$(O)/obj/gen/target.o $(O)/obj/gen/quant.o
GEN_OBJS = $(GEN_SRCS:%.c=$(O)/obj/%.o) $(O)/obj/embedded.o
EMBEDDED = gen/tmpl.lua templates/lib.lua templates/c.lua templates/words.lua \
	$(wildcard templates/*.lt)
UNIT_SRCS = $(wildcard tests/t0*.c)
UNIT_TESTS = $(UNIT_SRCS:%.c=$(O)/%)

ifneq ($(V),1)
QUIET_CC = @echo '   CC     ' $@;
QUIET_LINK = @echo '   LINK   ' $@;
QUIET_GEN = @echo '   GEN    ' $@;
endif

.DELETE_ON_ERROR:
.SECONDARY:
.SUFFIXES:
.PHONY: all check check-quick test test-quick demo deps bench size regen install uninstall clean FORCE fuzz fuzz-build asan

all: $(O)/bcastgen

# Rebuild everything when the flags change.
$(O)/CFLAGS: FORCE
	@mkdir -p $(@D)
	@echo '$(CC) $(ALL_CFLAGS) $(LDFLAGS) $(LUA_LIBS)' >$@.new; \
	if cmp -s $@.new $@; then rm $@.new; else mv $@.new $@; fi

$(O)/obj/%.o: %.c $(O)/CFLAGS
	@mkdir -p $(@D)
	$(QUIET_CC)$(CC) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

$(O)/embedded.c: $(EMBEDDED) gen/embed.sh
	@mkdir -p $(@D)
	$(QUIET_GEN)sh gen/embed.sh $(EMBEDDED) >$@

$(O)/obj/embedded.o: $(O)/embedded.c $(O)/CFLAGS
	@mkdir -p $(@D)
	$(QUIET_CC)$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(O)/bcastgen: $(GEN_OBJS)
	$(QUIET_LINK)$(CC) $(LDFLAGS) -o $@ $(GEN_OBJS) $(LUA_LIBS) -lm

$(O)/tests/%: $(O)/obj/tests/%.o $(CORE_OBJS)
	@mkdir -p $(@D)
	$(QUIET_LINK)$(CC) $(LDFLAGS) -o $@ $< $(CORE_OBJS) -lm

-include $(GEN_OBJS:.o=.d) $(UNIT_SRCS:%.c=$(O)/obj/%.d)

# Install what is missing from Debian; as non-root, say what to install.
deps:
	@missing=; big_missing=; for p in $(DEPS) $(BIG_DEPS); do \
		dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q ' installed$$' && continue; \
		case " $(BIG_DEPS) " in *" $$p "*) big_missing="$$big_missing $$p" ;; \
		*) missing="$$missing $$p" ;; esac; \
	done; \
	[ -z "$$missing$$big_missing" ] && exit 0; \
	if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		echo "deps: installing$$missing$$big_missing"; \
		apt-get update -qq && \
		{ [ -z "$$missing" ] || DEBIAN_FRONTEND=noninteractive \
			apt-get install -y -qq $$missing >/dev/null; } && \
		{ [ -z "$$big_missing" ] || DEBIAN_FRONTEND=noninteractive \
			apt-get install -y -qq --no-install-recommends $$big_missing >/dev/null; }; \
	else \
		echo "bcastgen needs these Debian packages:$$missing$$big_missing"; \
		[ -z "$$missing" ] || echo "install them with: sudo apt-get install -y$$missing"; \
		[ -z "$$big_missing" ] || echo "and: sudo apt-get install -y --no-install-recommends$$big_missing"; \
		exit 1; \
	fi

# The README's two commands: each installs what it needs first, then runs
# a fresh make so that pkg-config sees the packages just installed; that
# make builds on every core (SUB_JOBS: -j$(JOBS), unless make has a -j).
SUB_JOBS = $(if $(filter -j%,$(MAKEFLAGS)),,-j$(JOBS))
check: deps
	@$(MAKE) --no-print-directory $(SUB_JOBS) test

# The quick tier, for the edit loop: under a minute on 2 cores.
check-quick: deps
	@$(MAKE) --no-print-directory $(SUB_JOBS) test-quick

demo: deps
	@$(MAKE) --no-print-directory $(O)/bcastgen
	sh examples/demo.sh $(O)/bcastgen

# The benchmark: bcastgen's kernels against hand-written loops,
# XNNPACK, NumPy and the memory system's limit (bench/run.py). A whole
# run replaces its processor's section of BENCHMARKS.md, keeps the other
# processors' and writes bench/ratios-PROCESSOR.svg; BENCH_CASES or
# BENCH_LEVELS write $(O)/bench/BENCHMARKS.md only.
bench:
	@$(MAKE) --no-print-directory deps DEPS='$(DEPS) $(BENCH_DEPS)'
	@$(MAKE) --no-print-directory $(O)/bcastgen
	/usr/bin/python3 bench/run.py --gen $(O)/bcastgen --out $(O)/bench --cc '$(CC)' \
		--only '$(BENCH_CASES)' --levels '$(BENCH_LEVELS)' $(BENCH_FLAGS)

# The size table: each case's kernels for the five firmware targets
# (the Cortex-M55 with gcc and clang) at -Os and -O2, .text bytes and
# instructions per element under QEMU, next to bc_ref.h's walk and a
# hand-written loop (bench/size.py); fails when --optimize size is larger
# than another strategy at -Os, or auto for the target's own row is
# slower or more than 4x larger than the strategies at -O2.
# Writes $(O)/size/SIZE.md; SIZE.md at the top is a copy of a whole run.
size:
	@$(MAKE) --no-print-directory deps DEPS='$(DEPS) $(SIZE_DEPS)'
	@$(MAKE) --no-print-directory $(O)/bcastgen
	/usr/bin/python3 bench/size.py --gen $(O)/bcastgen --out $(O)/size --only '$(SIZE_CASES)' \
		$(SIZE_FLAGS)

# The suite in parallel, one job per core, and its wall time; the
# sanitizer build, the fuzzing harnesses and the playground page are
# built first when the compilers can (tests/t9xx and t250 skip
# otherwise, saying why). The tests that
# take longest start first (SLOW_TESTS, the longest first, as prove
# --timer shows them), so that the jobs end together; then the others.
SLOW_TESTS = tests/t600-firmware.t tests/t070-compilers.t tests/t170-pictures.t \
	tests/t610-relocations.t tests/t050-runtime.t tests/t300-kernels.t tests/t310-expr.t \
	tests/t710-quant-kernels.t tests/t330-stream.t tests/t320-loop-order.t \
	tests/t904-asan-sandbox.t tests/t903-asan-catalogue.t tests/t411-cmake.t \
	tests/t250-playground.t tests/t060-limits.t
ALL_TESTS = $(SLOW_TESTS) $(filter-out $(SLOW_TESTS),$(sort $(wildcard tests/*.t)))
test: $(O)/bcastgen $(UNIT_TESTS)
	@$(MAKE) --no-print-directory asan
	@if $(HAVE_LIBFUZZER); then $(MAKE) --no-print-directory fuzz-build; \
	else echo 'make check: no libFuzzer runtime (libclang-rt-14-dev): fuzzing smoke run skipped'; fi
	@if command -v emcc >/dev/null; then $(MAKE) --no-print-directory -s $(O)/playground/bcastgen.html || \
		echo 'make check: the playground page did not build (t250 says why)'; \
	else echo 'make check: no emscripten (make deps installs it): t250 builds or skips the playground'; fi
	@start=$$(date +%s); \
	BCASTGEN_O=$(O) GEN=$(O)/bcastgen prove --exec '' $(PROVE_FLAGS) $(ALL_TESTS) $(UNIT_TESTS); \
	status=$$?; \
	echo "make check: $$(($$(date +%s) - start)) s wall time"; \
	exit $$status

# The quick tier: the unit tests, the goldens, the catalogue, bad input,
# names, specs, and a sample of the NumPy oracles (QUICK_KERNELS of
# t300's kernels, QUICK_EXPRS of t310's expressions), without the
# sanitizer build, the firmware targets or the integrations.
QUICK_TESTS = tests/t005-scratch.t tests/t010-cases.t tests/t020-numpy-oracle.t \
	tests/t030-bad-input.t tests/t035-catalogue.t tests/t100-explain.t tests/t110-golden.t \
	tests/t175-values.t \
	tests/t130-output.t tests/t150-names.t tests/t190-source.t tests/t300-kernels.t \
	tests/t310-expr.t tests/t400-spec.t
QUICK_KERNELS = 100
QUICK_EXPRS = 40
test-quick: $(O)/bcastgen $(UNIT_TESTS)
	@start=$$(date +%s); \
	BCAST_KERNELS_N=$(QUICK_KERNELS) BCAST_EXPR_N=$(QUICK_EXPRS) BCASTGEN_O=$(O) \
	GEN=$(O)/bcastgen prove --exec '' $(PROVE_FLAGS) $(QUICK_TESTS) $(UNIT_TESTS); \
	status=$$?; \
	echo "make check-quick: $$(($$(date +%s) - start)) s wall time"; \
	exit $$status

# The generator built with AddressSanitizer and UBSan, for tests/t9xx.
ASAN_FLAGS = -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer
asan:
	@$(MAKE) --no-print-directory O=$(O)/asan CFLAGS='$(ASAN_FLAGS)' \
		LDFLAGS='$(ASAN_FLAGS)' $(O)/asan/bcastgen

# libFuzzer harnesses (tests/fuzz/fuzz_*.c) over the generator's sources
# built with ASan and UBSan, exit turned into a jump back to the harness
# (tests/fuzz/fuzz.h). make fuzz runs each for FUZZ_SECONDS on its corpus,
# tests/fuzz/NAME plus what it finds (in $(O)/fuzz/corpus/NAME); crashes
# go to $(O)/fuzz/crashes/. Then tests/fuzz/compile.sh compiles with
# -Werror the kernels that the pipeline's inputs generate.
HAVE_LIBFUZZER = printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n)\
	{ (void)d; (void)n; return 0; }\n' | $(FUZZ_CC) -x c -fsanitize=fuzzer - \
	-o /dev/null >/dev/null 2>&1
FUZZERS = shape expr spec pipeline
FUZZ_SAN = -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_CFLAGS = -std=c99 -g -O1 -fno-omit-frame-pointer $(FUZZ_SAN) \
	-Igen -I$(O) -Itests/fuzz $(LUA_CFLAGS)
FUZZ_GEN_OBJS = $(filter-out %/main.o,$(GEN_SRCS:%.c=$(O)/fuzz/obj/%.o)) \
	$(O)/fuzz/obj/embedded.o $(O)/fuzz/obj/fuzz_rt.o

$(O)/fuzz/obj/gen/%.o: gen/%.c tests/fuzz/fuzz.h $(O)/CFLAGS
	@mkdir -p $(@D)
	$(QUIET_CC)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link \
		-include tests/fuzz/fuzz.h -Dmain=bcastgen_program_main -MMD -MP -c -o $@ $<

$(O)/fuzz/obj/embedded.o: $(O)/embedded.c
	@mkdir -p $(@D)
	$(QUIET_CC)$(FUZZ_CC) $(FUZZ_CFLAGS) -c -o $@ $<

$(O)/fuzz/obj/%.o: tests/fuzz/%.c tests/fuzz/fuzz_rt.h
	@mkdir -p $(@D)
	$(QUIET_CC)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link \
		-DBC_FUZZ_FILES='"$(CURDIR)/tests/fuzz/files"' -MMD -MP -c -o $@ $<

$(O)/fuzz/fuzz_pipeline: $(O)/fuzz/obj/gen/main.o
$(O)/fuzz/fuzz_%: $(O)/fuzz/obj/fuzz_%.o $(FUZZ_GEN_OBJS)
	$(QUIET_LINK)$(FUZZ_CC) $(FUZZ_SAN) -fsanitize=fuzzer -o $@ $^ $(LUA_LIBS) -lm

-include $(wildcard $(O)/fuzz/obj/*.d $(O)/fuzz/obj/gen/*.d)

fuzz-build: $(FUZZERS:%=$(O)/fuzz/fuzz_%)

fuzz: fuzz-build $(O)/bcastgen
	@for f in $(FUZZERS); do \
		sh tests/fuzz/run.sh $(O)/fuzz $$f $(FUZZ_SECONDS) || exit 1; \
	done
	python3 tests/fuzz/compile.py $(O)/bcastgen tests/fuzz/pipeline $(O)/fuzz/corpus/pipeline

# Rewrite the golden files from the current binary; review with git diff.
regen: $(O)/bcastgen
	GEN=$(O)/bcastgen sh tests/regen.sh
	BCASTGEN_MK="$(CURDIR)/dist/bcastgen.mk" BCASTGEN=$(abspath $(O)/bcastgen) \
		$(MAKE) --no-print-directory -B -s -C examples/teaching

# What make install puts under PREFIX, and where from.
INSTALLED = bin/bcastgen include/bcastgen/bc.h include/bcastgen/bc_math.h include/bcastgen/bc_stream.h \
	include/bcastgen/bc_f16.h include/bcastgen/bc_quant.h include/bcastgen/bc_cpu.h \
	include/bcastgen/bc_ref.h share/man/man1/bcastgen.1 \
	share/bcastgen/bcastgen.mk lib/cmake/bcastgen/bcastgen-config.cmake \
	lib/cmake/bcastgen/bcastgen-config-version.cmake

# Install under DESTDIR and PREFIX, either of which may hold spaces. The
# Make fragment gets PREFIX (for when make cannot name it), the CMake
# package the binary's version. PREFIX reaches the fragment through
# awk's ENVIRON, as plain text (in a sed replacement '&', '|' and '\'
# would be sed's); make's own '$' and '#' are escaped for the fragment.
install: $(O)/bcastgen
	install -D -m 755 $(O)/bcastgen "$(DESTDIR)$(PREFIX)/bin/bcastgen"
	for f in bc.h bc_math.h bc_stream.h bc_ref.h bc_f16.h bc_quant.h bc_cpu.h; do \
		install -D -m 644 runtime/$$f "$(DESTDIR)$(PREFIX)/include/bcastgen/$$f" || exit 1; \
	done
	install -D -m 644 dist/bcastgen.1 "$(DESTDIR)$(PREFIX)/share/man/man1/bcastgen.1"
	install -d "$(DESTDIR)$(PREFIX)/share/bcastgen" "$(DESTDIR)$(PREFIX)/lib/cmake/bcastgen"
	BCASTGEN_PREFIX="$(PREFIX)" awk '/^bcastgen_installed_prefix =/ { \
		p = ENVIRON["BCASTGEN_PREFIX"]; e = ""; \
		for (i = 1; i <= length(p); i++) { c = substr(p, i, 1); \
			e = e (c == "$$" ? "$$$$" : c == "#" ? "\\#" : c) } \
		print "bcastgen_installed_prefix = " e; next } { print }' dist/bcastgen.mk \
		>"$(DESTDIR)$(PREFIX)/share/bcastgen/bcastgen.mk"
	install -m 644 dist/bcastgen-config.cmake "$(DESTDIR)$(PREFIX)/lib/cmake/bcastgen/bcastgen-config.cmake"
	v=$$($(O)/bcastgen --version | sed -n 's/^bcastgen //p'); \
	[ -n "$$v" ] || { echo "make install: $(O)/bcastgen --version gave no version" >&2; exit 1; }; \
	sed "s|@BCASTGEN_VERSION@|$$v|" dist/bcastgen-config-version.cmake \
		>"$(DESTDIR)$(PREFIX)/lib/cmake/bcastgen/bcastgen-config-version.cmake"
	chmod 644 "$(DESTDIR)$(PREFIX)/share/bcastgen/bcastgen.mk" \
		"$(DESTDIR)$(PREFIX)/lib/cmake/bcastgen/bcastgen-config-version.cmake"

# Remove what make install put there, and its directories if empty.
uninstall:
	for f in $(INSTALLED); do rm -f "$(DESTDIR)$(PREFIX)/$$f"; done
	-rmdir "$(DESTDIR)$(PREFIX)/include/bcastgen" "$(DESTDIR)$(PREFIX)/share/bcastgen" \
		"$(DESTDIR)$(PREFIX)/lib/cmake/bcastgen" 2>/dev/null

clean:
	rm -rf $(O)

include playground/playground.mk

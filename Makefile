# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# tcptrace: `make` builds ./tcptrace, `make test` runs every test (root).
OUTPUT := build
CLANG ?= clang
BPFTOOL ?= bpftool
CC ?= cc
ARCH := $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/' -e 's/ppc64le/powerpc/')
VERSION := 0.1.0

CFLAGS ?= -g -O2
WARNINGS := -Wall -Wextra -Werror
INCLUDES := -Iinclude -Isrc/user -I$(OUTPUT)
USER_CFLAGS := -std=gnu11 $(WARNINGS) $(INCLUDES) -DTCPTRACE_VERSION='"$(VERSION)"'
DEPFLAGS := -MMD -MP
BPF_CFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) $(WARNINGS) \
	-Wno-unused-parameter -Iinclude -I. -MMD -MP
# libbpf linked in, as libbpf-tools' package does: the binary needs libelf
# and zlib only, and runs with the libbpf it was tested with.
LIBS := -l:libbpf.a -lelf -lz

# src/user/ by job (docs/layout.md); a folder uses only those before it
# in this list (tests/lint/layers.sh checks it).
# Pure modules: unit-tested without root and without libbpf.
PURE := common/stats common/columns common/connect_time common/utf8 common/procfs common/fail \
	common/test_hooks \
	common/cgroup_name \
	tracer/ports tracer/tw_table tracer/kallsyms tracer/verifier_log \
	output/table output/csv output/json output/metrics output/metrics_render output/http \
	output/findings output/findings_write output/findings_load \
	offline/csv_read offline/compare offline/compare_write offline/compare_cli offline/timeline \
	offline/html offline/report_page \
	offline/report_cli \
	cli/options cli/proc_match
# The tracer's files that include the BPF skeleton.
TRACER := tracer/tracer tracer/seed tracer/snapshot tracer/timewait tracer/slots tracer/counters \
	tracer/listeners tracer/acceptors tracer/syscall_hooks
USER := $(PURE) tracer/sockdiag tracer/probe tracer/netns tracer/netns_broker tracer/namespaces $(TRACER) tracer/selfcheck output/report \
	output/exporter cli/privileges cli/command cli/scope cli/targets cli/outputs cli/startup cli/loop cli/summary cli/main
UNIT_TESTS := $(patsubst tests/unit/%.c,$(OUTPUT)/%,$(wildcard tests/unit/test_*.c))

ifeq ($(V),1)
Q :=
msg :=
else
Q := @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

.DELETE_ON_ERROR:
.PHONY: all clean unit integration kernel-test kernel-fetch soak test test-programs install uninstall hookcost deb

all: tcptrace $(OUTPUT)/tt-scenario $(OUTPUT)/tt-stall $(OUTPUT)/tt_loss.bpf.o

$(OUTPUT):
	$(Q)mkdir -p $@

$(OUTPUT)/%.tmp.bpf.o: src/bpf/%.bpf.c | $(OUTPUT)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(OUTPUT)/%.tmp.bpf.o: bench/%.bpf.c | $(OUTPUT)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(OUTPUT)/%.tmp.bpf.o: tests/integration/%.bpf.c | $(OUTPUT)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(OUTPUT)/%.tmp.bpf.o: tests/kernel/%.bpf.c | $(OUTPUT)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(OUTPUT)/%.bpf.o: $(OUTPUT)/%.tmp.bpf.o
	$(call msg,GEN-OBJ,$@)
	$(Q)$(BPFTOOL) gen object $@ $<

$(OUTPUT)/%.skel.h: $(OUTPUT)/%.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name $*_bpf > $@

.SECONDARY: $(patsubst %,$(OUTPUT)/%.tmp.bpf.o,tcptrace hookcost tt_stall tt_loss) \
	$(patsubst %,$(OUTPUT)/%.bpf.o,tcptrace hookcost tt_stall tt_loss)

# The skeleton must exist before any user object that includes it is built.
$(patsubst %,$(OUTPUT)/user/%.o,$(TRACER)): $(OUTPUT)/tcptrace.skel.h

# The report page's own style and script, compiled in as strings.
REPORT_ASSETS := src/user/offline/page/report.css src/user/offline/page/report.js
$(OUTPUT)/report_assets.h: tools/embed.sh $(REPORT_ASSETS) | $(OUTPUT)
	$(call msg,EMBED,$@)
	$(Q)tools/embed.sh report_css $(word 1,$(REPORT_ASSETS)) report_js $(word 2,$(REPORT_ASSETS)) >$@

$(OUTPUT)/user/offline/report_page.o: $(OUTPUT)/report_assets.h

$(OUTPUT)/user/%.o: src/user/%.c
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(USER_CFLAGS) $(DEPFLAGS) -c $< -o $@

tcptrace: $(patsubst %,$(OUTPUT)/user/%.o,$(USER))
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $^ $(LIBS) -o $@

$(OUTPUT)/test_%: tests/unit/test_%.c $(patsubst %,$(OUTPUT)/user/%.o,$(PURE))
	$(call msg,CC,$@)
	$(Q)mkdir -p $(OUTPUT)/deps
	$(Q)$(CC) $(CFLAGS) $(USER_CFLAGS) -MMD -MP -MF $(OUTPUT)/deps/$(notdir $@).d \
		$(filter %.c %.o,$^) -lcmocka -o $@

# What each building block of a tracer costs per event (bench/hookcost.sh);
# not part of `make`.
$(OUTPUT)/hookcost: bench/hookcost.c $(OUTPUT)/hookcost.skel.h
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -std=gnu11 $(WARNINGS) -I$(OUTPUT) $(DEPFLAGS) $< $(LIBS) -o $@

hookcost: $(OUTPUT)/hookcost

# The integration tests' TCP peer: its options, shared socket steps, server
# and client, each a file of tests/integration/scenario/, and the kernel's
# struct tcp_info read apart (tcpinfo).
SCENARIO_OBJS := $(patsubst %,$(OUTPUT)/scenario/%.o,main options sockets server client tcpinfo)

$(OUTPUT)/scenario/%.o: tests/integration/scenario/%.c
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -std=gnu11 $(WARNINGS) -MMD -MP -c $< -o $@

$(OUTPUT)/tt-scenario: $(SCENARIO_OBJS) | $(OUTPUT)
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS) $^ -o $@

# Every heading the table and the summary write, printed by their own code,
# for the install suite's check of the docs' output blocks.
$(OUTPUT)/tt-headings: tests/docs/tt-headings.c $(OUTPUT)/user/output/report.o \
		$(patsubst %,$(OUTPUT)/user/%.o,$(PURE))
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(USER_CFLAGS) $(DEPFLAGS) $(filter %.c %.o,$^) -o $@

# Holds a CPU at a socket's move to CLOSE, for one integration case.
$(OUTPUT)/tt-stall: tests/integration/tt-stall.c $(OUTPUT)/tt_stall.skel.h
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -std=gnu11 $(WARNINGS) -I$(OUTPUT) $(DEPFLAGS) $< $(LIBS) -o $@

unit: $(UNIT_TESTS)
	$(Q)tests/run-unit.sh $(UNIT_TESTS)

integration: tcptrace $(OUTPUT)/tt-scenario $(OUTPUT)/tt-stall
	$(Q)tests/integration/run.sh

# tcptrace in Debian's stock kernels under qemu, one series after the
# other; the kernels are kept in $(OUTPUT)/kernel. `make kernel-fetch`
# only downloads them (tests/run-all.sh does, in the background, while the
# first suites run).
KERNELS ?= 5.10 6.1 6.12
kernel-test: tcptrace $(OUTPUT)/tt-scenario $(OUTPUT)/tt_loss.bpf.o
	$(Q)tests/kernel/matrix.sh $(KERNELS)

kernel-fetch:
	$(Q)status=0; for series in $(KERNELS); do \
		tests/kernel/fetch-kernel.sh $$series $(OUTPUT)/kernel || status=1; \
	done; exit $$status

# The cases that failed once, the listen-queue and handshake cases, the
# scale runs and the kernel matrix's guests, many times each beside a second
# tracer and busy CPUs (root; hours: docs/testing.md, "Soak"). Not in test.
soak: tcptrace $(OUTPUT)/tt-scenario $(OUTPUT)/tt-stall
	$(Q)tests/soak.sh

# Everything, each suite run even when one before it failed (root).
# tests/run-all.sh first builds test-programs (below), every program the
# suites run, on every CPU unless make was given -j.
test:
	$(Q)+tests/run-all.sh

clean:
	$(call msg,CLEAN,)
	$(Q)rm -rf $(OUTPUT) tcptrace

# `make install` after `make`: PREFIX and DESTDIR as usual, and SBINDIR,
# MANDIR, BASHCOMPDIR and DOCDIR each settable on its own. tcptrace needs
# root, so it goes to sbin and its page to section 8, as bpftool and
# libbpf-tools' packages do. Its docs go where the Debian package puts them,
# share/doc/tcptrace-bpf (Debian's own tcptrace package owns doc/tcptrace):
# the findings cite share/doc/tcptrace-bpf/diagnosing.md under any prefix.
# The unit is an example, not enabled; its ExecStart is given the installed
# path.
PREFIX ?= /usr/local
SBINDIR ?= $(PREFIX)/sbin
DATAROOTDIR ?= $(PREFIX)/share
MANDIR ?= $(DATAROOTDIR)/man
BASHCOMPDIR ?= $(DATAROOTDIR)/bash-completion/completions
DOCDIR ?= $(DATAROOTDIR)/doc/tcptrace-bpf
INSTALL ?= install
# What the findings and the man page send a reader to, and the pages those
# link to.
DOCS := README.md docs/diagnosing.md docs/columns.md docs/metrics.md docs/usage.md \
	docs/kernels.md docs/install.md

INSTALLED := $(DESTDIR)$(SBINDIR)/tcptrace $(DESTDIR)$(MANDIR)/man8/tcptrace.8 \
	$(DESTDIR)$(BASHCOMPDIR)/tcptrace $(DESTDIR)$(DOCDIR)/examples/tcptrace-exporter.service \
	$(patsubst %,$(DESTDIR)$(DOCDIR)/%,$(notdir $(DOCS)))

install: tcptrace
	$(call msg,INSTALL,$(DESTDIR)$(SBINDIR)/tcptrace)
	$(Q)$(INSTALL) -D -m 0755 tcptrace $(DESTDIR)$(SBINDIR)/tcptrace
	$(call msg,INSTALL,$(DESTDIR)$(MANDIR)/man8/tcptrace.8)
	$(Q)$(INSTALL) -D -m 0644 docs/tcptrace.8 $(DESTDIR)$(MANDIR)/man8/tcptrace.8
	$(call msg,INSTALL,$(DESTDIR)$(BASHCOMPDIR)/tcptrace)
	$(Q)$(INSTALL) -D -m 0644 contrib/bash-completion/tcptrace $(DESTDIR)$(BASHCOMPDIR)/tcptrace
	$(call msg,INSTALL,$(DESTDIR)$(DOCDIR))
	$(Q)$(INSTALL) -d -m 0755 $(DESTDIR)$(DOCDIR)
	$(Q)$(INSTALL) -m 0644 $(DOCS) $(DESTDIR)$(DOCDIR)/
	$(call msg,INSTALL,$(DESTDIR)$(DOCDIR)/examples/tcptrace-exporter.service)
	$(Q)$(INSTALL) -D -m 0644 docs/examples/tcptrace-exporter.service \
		$(DESTDIR)$(DOCDIR)/examples/tcptrace-exporter.service
	$(Q)sed -i 's|@SBINDIR@|$(SBINDIR)|' $(DESTDIR)$(DOCDIR)/examples/tcptrace-exporter.service

# The Debian package, tcptrace-bpf (tools/make-deb.sh says why that name).
deb: tcptrace
	$(call msg,DEB,$(OUTPUT))
	$(Q)tools/make-deb.sh $(VERSION) $(OUTPUT)

# Only the folders that are tcptrace's own go with the files, and only when
# nothing else was put there.
uninstall:
	$(call msg,RM,$(INSTALLED))
	$(Q)rm -f $(INSTALLED)
	$(Q)for dir in $(DESTDIR)$(DOCDIR)/examples $(DESTDIR)$(DOCDIR); do \
		[ ! -d "$$dir" ] || rmdir --ignore-fail-on-non-empty "$$dir"; \
	done

-include $(wildcard $(OUTPUT)/*.d $(OUTPUT)/deps/*.d $(OUTPUT)/user/*/*.d $(OUTPUT)/scenario/*.d)

# ---------------------------------------------------------------------------
# Reliability checks (tests/run-checks.sh runs the first three in sequence):
#   make asan      unit tests and ./tcptrace built with ASan + UBSan, then run
#   make valgrind  unit tests and ./tcptrace under valgrind memcheck
#   make lint      clang-tidy (.clang-tidy) and cppcheck (tests/cppcheck.supp)
#   make fuzz      libFuzzer on the option parser, the CSV reader and the
#                  HTTP request parser, FUZZ_SECONDS each (default 30)
# The *-unit targets need no root; the tcptrace runs load BPF and need root.
# Sanitizer objects live in their own folder, never in $(OUTPUT)/user; only
# the generated skeleton header is shared. One set serves the ASan unit
# tests, the ASan tcptrace and the fuzzers: it carries libFuzzer's coverage
# too (fuzzer-no-link), which the sanitizer runtime answers in a program
# that is not a fuzzer.
SAN_CC ?= clang-19
CLANG_TIDY ?= clang-tidy-19
CPPCHECK ?= cppcheck
FUZZ_SECONDS ?= 30
ASAN_OUTPUT := $(OUTPUT)/asan
FUZZ_OUTPUT := $(OUTPUT)/fuzz
SAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
SAN_CFLAGS := -g -O1 $(SAN_FLAGS)
# clang warns about a string literal split over lines inside an array
# initialiser (main.c drop_what[]), which gcc, the normal build's compiler,
# does not: the split is meant. It must come after USER_CFLAGS' -Wextra.
ASAN_UNIT_TESTS := $(patsubst tests/unit/%.c,$(ASAN_OUTPUT)/%,$(wildcard tests/unit/test_*.c))
ASAN_TCPTRACE := $(ASAN_OUTPUT)/tcptrace
SAN_OBJ_CFLAGS := $(SAN_CFLAGS) -fsanitize=fuzzer-no-link
# tests/fuzz/fuzz_NAME.c drives the module .../NAME.c of this list.
FUZZ_MODULES := cli/options output/http offline/csv_read
# What a fuzzed module may use besides libc: linked into every fuzzer.
FUZZ_SHARED := common/columns common/connect_time common/fail
FUZZERS := $(notdir $(FUZZ_MODULES))
LINT_CFLAGS := -std=gnu11 $(INCLUDES) -DTCPTRACE_VERSION='"$(VERSION)"'

.PHONY: asan asan-unit asan-tcptrace valgrind valgrind-unit valgrind-tcptrace lint fuzz checks

$(patsubst %,$(ASAN_OUTPUT)/user/%.o,$(TRACER)): $(OUTPUT)/tcptrace.skel.h
$(ASAN_OUTPUT)/user/offline/report_page.o: $(OUTPUT)/report_assets.h

$(ASAN_OUTPUT)/user/%.o: src/user/%.c
	$(call msg,CC-ASAN,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(SAN_CC) $(SAN_OBJ_CFLAGS) $(USER_CFLAGS) $(DEPFLAGS) -c $< -o $@

$(ASAN_OUTPUT)/test_%: tests/unit/test_%.c $(patsubst %,$(ASAN_OUTPUT)/user/%.o,$(PURE))
	$(call msg,CC-ASAN,$@)
	$(Q)$(SAN_CC) $(SAN_CFLAGS) $(USER_CFLAGS) $^ -lcmocka -o $@

$(ASAN_TCPTRACE): $(patsubst %,$(ASAN_OUTPUT)/user/%.o,$(USER))
	$(call msg,LINK-ASAN,$@)
	$(Q)$(SAN_CC) $(SAN_CFLAGS) $^ $(LIBS) -o $@

asan-unit: $(ASAN_UNIT_TESTS)
	$(Q)tests/memcheck.sh asan unit $(ASAN_UNIT_TESTS)

asan-tcptrace: $(ASAN_TCPTRACE)
	$(Q)tests/memcheck.sh asan tcptrace $(ASAN_TCPTRACE)

# Both halves run even when the first fails, so one run shows every report.
asan: $(ASAN_UNIT_TESTS) $(ASAN_TCPTRACE)
	$(Q)status=0; \
	tests/memcheck.sh asan unit $(ASAN_UNIT_TESTS) || status=1; \
	tests/memcheck.sh asan tcptrace $(ASAN_TCPTRACE) || status=1; \
	exit $$status

valgrind-unit: $(UNIT_TESTS)
	$(Q)tests/memcheck.sh valgrind unit $(UNIT_TESTS)

valgrind-tcptrace: tcptrace
	$(Q)tests/memcheck.sh valgrind tcptrace ./tcptrace

valgrind: $(UNIT_TESTS) tcptrace
	$(Q)status=0; \
	tests/memcheck.sh valgrind unit $(UNIT_TESTS) || status=1; \
	tests/memcheck.sh valgrind tcptrace ./tcptrace || status=1; \
	exit $$status

# `make lint` (tests/lint.sh) checks the shape from the objects, then runs
# `make lint-tidy` on every CPU: clang-tidy once per source, whose stamp in
# $(LINT_OUTPUT) is made only when the file passed, and which is redone
# when the file, a header it includes (the compiler's -MM list), .clang-tidy,
# a force-included header or the flags change. A second `make lint` checks
# only what changed. cppcheck keeps its own results in $(LINT_OUTPUT)/cppcheck
# and reads the skeleton without its BPF bytes (tests/lint/slim-skel.sh).
LINT_OUTPUT := $(OUTPUT)/lint
TIDY_STAMPS := $(patsubst %.c,$(LINT_OUTPUT)/%.tidy,$(wildcard src/user/*/*.c tests/unit/*.c))
$(LINT_OUTPUT)/src/user/%.tidy: LINT_INCLUDE := tests/lint/libbpf-ownership.h
$(LINT_OUTPUT)/tests/unit/%.tidy: LINT_INCLUDE := tests/lint/cmocka-noreturn.h

lint: $(patsubst %,$(OUTPUT)/user/%.o,$(USER)) $(LINT_OUTPUT)/include/tcptrace.skel.h
	$(Q)MAKE='$(MAKE)' CLANG_TIDY='$(CLANG_TIDY)' CPPCHECK='$(CPPCHECK)' LINT_OUTPUT='$(LINT_OUTPUT)' \
		BPF_LINT='$(CLANG) $(BPF_CFLAGS)' tests/lint.sh $(LINT_CFLAGS)

.PHONY: lint-tidy FORCE
lint-tidy: $(TIDY_STAMPS)

# Rewritten only when the flags or the tool change, so that only then every
# stamp is out of date.
$(LINT_OUTPUT)/flags: FORCE
	$(Q)mkdir -p $(@D)
	$(Q)echo '$(CLANG_TIDY) $(LINT_CFLAGS)' | cmp -s - $@ || echo '$(CLANG_TIDY) $(LINT_CFLAGS)' >$@

$(LINT_OUTPUT)/%.tidy: %.c .clang-tidy tests/lint/tidy.sh tests/lint/libbpf-ownership.h \
		tests/lint/cmocka-noreturn.h $(LINT_OUTPUT)/flags | $(OUTPUT)/tcptrace.skel.h $(OUTPUT)/report_assets.h
	$(call msg,TIDY,$<)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(LINT_CFLAGS) -MM -MP -MT $@ -MF $(@:.tidy=.d) $<
	$(Q)tests/lint/tidy.sh $(CLANG_TIDY) $< -- $(LINT_CFLAGS) -include $(LINT_INCLUDE)
	$(Q)touch $@

$(LINT_OUTPUT)/include/tcptrace.skel.h: $(OUTPUT)/tcptrace.skel.h tests/lint/slim-skel.sh
	$(call msg,SLIM,$@)
	$(Q)mkdir -p $(@D)
	$(Q)tests/lint/slim-skel.sh $< >$@

$(FUZZ_OUTPUT)/fuzz_%.o: tests/fuzz/fuzz_%.c
	$(call msg,CC-FUZZ,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(SAN_CC) $(SAN_OBJ_CFLAGS) $(USER_CFLAGS) $(DEPFLAGS) -c $< -o $@

# tests/fuzz/fuzz_NAME.c drives the module NAME of FUZZ_MODULES; its seeds
# are in tests/fuzz/corpus/NAME, its dictionary in tests/fuzz/NAME.dict.
define fuzz_link
$(FUZZ_OUTPUT)/fuzz_$(notdir $(1)): $(FUZZ_OUTPUT)/fuzz_$(notdir $(1)).o $(ASAN_OUTPUT)/user/$(1).o \
		$(patsubst %,$(ASAN_OUTPUT)/user/%.o,$(FUZZ_SHARED))
	$$(call msg,LINK-FUZZ,$$@)
	$$(Q)$$(SAN_CC) $$(SAN_CFLAGS) -fsanitize=fuzzer $$^ -lm -o $$@
endef
$(foreach m,$(FUZZ_MODULES),$(eval $(call fuzz_link,$(m))))

# Kept, so a second `make fuzz` relinks nothing.
.SECONDARY: $(patsubst %,$(FUZZ_OUTPUT)/fuzz_%.o,$(FUZZERS)) \
	$(patsubst %,$(ASAN_OUTPUT)/user/%.o,$(FUZZ_MODULES) $(FUZZ_SHARED))

fuzz: $(patsubst %,$(FUZZ_OUTPUT)/fuzz_%,$(FUZZERS))
	$(Q)tests/fuzz/run.sh $(FUZZ_SECONDS) $^

checks:
	$(Q)tests/run-checks.sh

# What `make test` runs, built before any suite starts.
test-programs: all $(OUTPUT)/tt-headings $(UNIT_TESTS) $(ASAN_UNIT_TESTS) $(ASAN_TCPTRACE) \
	$(patsubst %,$(FUZZ_OUTPUT)/fuzz_%,$(FUZZERS))

-include $(wildcard $(ASAN_OUTPUT)/user/*/*.d $(FUZZ_OUTPUT)/*.d)
-include $(wildcard $(LINT_OUTPUT)/src/user/*/*.d $(LINT_OUTPUT)/tests/unit/*.d)

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
LIBS := -lbpf -lelf -lz

# Pure modules: unit-tested without root and without libbpf.
PURE := stats options table csv proc_match
USER := $(PURE) sockdiag tracer report main
UNIT_TESTS := $(patsubst tests/unit/%.c,$(OUTPUT)/%,$(wildcard tests/unit/test_*.c))

ifeq ($(V),1)
Q :=
msg :=
else
Q := @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

.DELETE_ON_ERROR:
.PHONY: all clean unit integration test

all: tcptrace $(OUTPUT)/tt-scenario

$(OUTPUT) $(OUTPUT)/user:
	$(Q)mkdir -p $@

$(OUTPUT)/tcptrace.tmp.bpf.o: src/bpf/tcptrace.bpf.c | $(OUTPUT)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(OUTPUT)/tcptrace.bpf.o: $(OUTPUT)/tcptrace.tmp.bpf.o
	$(call msg,GEN-OBJ,$@)
	$(Q)$(BPFTOOL) gen object $@ $<

$(OUTPUT)/tcptrace.skel.h: $(OUTPUT)/tcptrace.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name tcptrace_bpf > $@

# The skeleton must exist before any user object that includes it is built.
$(OUTPUT)/user/tracer.o: $(OUTPUT)/tcptrace.skel.h

$(OUTPUT)/user/%.o: src/user/%.c | $(OUTPUT)/user
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(USER_CFLAGS) $(DEPFLAGS) -c $< -o $@

tcptrace: $(patsubst %,$(OUTPUT)/user/%.o,$(USER))
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $^ $(LIBS) -o $@

$(OUTPUT)/test_%: tests/unit/test_%.c $(patsubst %,$(OUTPUT)/user/%.o,$(PURE))
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(USER_CFLAGS) $^ -lcmocka -o $@

$(OUTPUT)/tt-scenario: tests/integration/tt-scenario.c | $(OUTPUT)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -std=gnu11 $(WARNINGS) -MMD -MP $< -o $@

unit: $(UNIT_TESTS)
	$(Q)tests/run-unit.sh $(UNIT_TESTS)

integration: tcptrace $(OUTPUT)/tt-scenario
	$(Q)tests/integration/run.sh

test: unit integration

clean:
	$(call msg,CLEAN,)
	$(Q)rm -rf $(OUTPUT) tcptrace

-include $(wildcard $(OUTPUT)/*.d $(OUTPUT)/user/*.d)

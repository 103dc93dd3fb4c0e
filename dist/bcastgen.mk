# bcastgen.mk: generate kernels from bcastgen spec files in a Makefile.
#
#   include /usr/local/share/bcastgen/bcastgen.mk
#   CFLAGS += $(BCASTGEN_CFLAGS)
#   app: main.o net.o
#   	$(CC) $(LDFLAGS) -o $@ main.o net.o -lm
#   main.o: net.h
#
# A spec NAME.lua gives NAME.c and NAME.h. NAME.bcastgen-stamp records
# the last run; bcastgen rewrites NAME.c and NAME.h only when their
# content changes, so what is built from them is rebuilt only then. The
# stamp depends on the spec, on the bcastgen binary (when BCASTGEN, set
# before this file is included, is a path to a file: upgrading bcastgen
# regenerates every spec), and through the depfile NAME.bcastgen.d on
# the templates read with BCASTGEN_FLAGS = --templates DIR. A deleted
# NAME.c or NAME.h is generated again.

bcastgen_mk_dir := $(dir $(abspath $(lastword $(MAKEFILE_LIST))))
BCASTGEN_PREFIX ?= $(abspath $(bcastgen_mk_dir)../..)
BCASTGEN ?= $(BCASTGEN_PREFIX)/bin/bcastgen
BCASTGEN_CFLAGS ?= -I$(BCASTGEN_PREFIX)/include/bcastgen -ffp-contract=off
BCASTGEN_FLAGS ?=

# The generator as a prerequisite: its path if it names a file.
bcastgen_bin := $(if $(findstring /,$(firstword $(BCASTGEN))),$(wildcard $(firstword $(BCASTGEN))))
bcastgen_run = $(BCASTGEN) $(BCASTGEN_FLAGS) $*.lua -o $*.c -M $*.bcastgen.d -MT $*.bcastgen-stamp

%.c %.h: %.bcastgen-stamp
	@test -f $*.c && test -f $*.h || $(bcastgen_run)

%.bcastgen-stamp: %.lua $(bcastgen_bin)
	$(bcastgen_run)
	@touch $@

.PRECIOUS: %.bcastgen-stamp

# The depfiles' rules must not become the default goal.
bcastgen_goal := $(.DEFAULT_GOAL)
-include $(wildcard *.bcastgen.d)
.DEFAULT_GOAL := $(bcastgen_goal)

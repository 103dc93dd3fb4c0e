# bcastgen.mk: generate kernels from bcastgen spec files in a Makefile.
#
#   include /usr/local/share/bcastgen/bcastgen.mk
#   CFLAGS += $(BCASTGEN_CFLAGS)
#   app: main.o net.o
#   main.o: net.h
#
# A spec NAME.lua gives NAME.c and NAME.h. NAME.bcastgen-stamp records
# the last run; bcastgen rewrites NAME.c and NAME.h only when their
# content changes, so what is built from them is rebuilt only then. The
# depfile NAME.bcastgen.d makes the stamp depend on the spec and on the
# templates read with BCASTGEN_FLAGS = --templates DIR.

bcastgen_mk_dir := $(dir $(abspath $(lastword $(MAKEFILE_LIST))))
BCASTGEN_PREFIX ?= $(abspath $(bcastgen_mk_dir)../..)
BCASTGEN ?= $(BCASTGEN_PREFIX)/bin/bcastgen
BCASTGEN_CFLAGS ?= -I$(BCASTGEN_PREFIX)/include/bcastgen -ffp-contract=off
BCASTGEN_FLAGS ?=

%.c %.h: %.bcastgen-stamp
	@:

%.bcastgen-stamp: %.lua
	$(BCASTGEN) $(BCASTGEN_FLAGS) $< -o $*.c -M $*.bcastgen.d -MT $@
	@touch $@

.PRECIOUS: %.bcastgen-stamp

# The depfiles' rules must not become the default goal.
bcastgen_goal := $(.DEFAULT_GOAL)
-include $(wildcard *.bcastgen.d)
.DEFAULT_GOAL := $(bcastgen_goal)

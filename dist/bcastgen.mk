# bcastgen.mk: generate kernels from bcastgen spec files in a Makefile.
#
#   include /usr/local/share/bcastgen/bcastgen.mk
#   CFLAGS += $(BCASTGEN_CFLAGS)
#   app: main.o net.o
#   	$(CC) $(LDFLAGS) -o $@ main.o net.o -lm
#   main.o: net.h
#
# A spec NAME.lua gives NAME.c and NAME.h beside it (only the last
# extension goes: layer.v2.lua gives layer.v2.c). NAME.bcastgen-stamp
# records the last run; bcastgen rewrites NAME.c and NAME.h only when
# their content changes, so what is built from them is rebuilt only then.
# The stamp depends on the spec, on the bcastgen binary (when BCASTGEN,
# set before this file is included, is a path to a file: upgrading
# bcastgen regenerates every spec), and through the depfile
# NAME.bcastgen.d on the templates read with BCASTGEN_FLAGS = --templates
# DIR. A deleted NAME.c or NAME.h is generated again.
#
# Which files are specs: set BCASTGEN_SPECS before the include to list
# them (BCASTGEN_SPECS = net.lua gen/layers.lua), and only those are
# generated; a config.lua beside a hand-written config.c is left alone.
# Unset, any NAME.c whose NAME.lua exists is generated from it, and the
# specs and depfiles are looked for in every directory below the current
# one. make does not delete the NAME.c and NAME.h of a declared spec, or
# of one found there, as intermediate files: they are named (see below).
#
# BCASTGEN_CFLAGS holds what the kernels need to compile: the runtime
# headers' directory. No other flag is needed: the kernels keep a*b + c
# from being fused by themselves (see the README).

bcastgen_space := $() $()
# The prefix make install put this file under, written by make install;
# used when the path it was included by has a space in it.
bcastgen_installed_prefix =
bcastgen_mk_file := $(lastword $(MAKEFILE_LIST))
bcastgen_goal := $(.DEFAULT_GOAL)

# The characters that make a path more than one plain word to the shell.
bcastgen_shell_chars := & ; | < > ( ) $$ ` \ " ' * ? [ ~ \#
# $(call bcastgen_sh,PATH): PATH as one word of a shell command: quoted
# if it has a space or one of those in it.
bcastgen_sh = $(if $(findstring $(bcastgen_space),$1)$(strip \
	$(foreach c,$(bcastgen_shell_chars),$(findstring $c,$1))),'$(subst ','\'',$1)',$1)
# $(call bcastgen_esc,PATH): PATH as one word of a rule's prerequisites.
bcastgen_esc = $(subst $(bcastgen_space),\ ,$1)

# The prefix: two directories above this file; the installed one when
# make cannot name this file (a space in its path splits it in two).
BCASTGEN_PREFIX ?= $(if $(wildcard $(bcastgen_mk_file)),$(abspath $(dir $(bcastgen_mk_file))../..),$(bcastgen_installed_prefix))
bcastgen_default := $(BCASTGEN_PREFIX)/bin/bcastgen
BCASTGEN ?= $(call bcastgen_sh,$(bcastgen_default))
BCASTGEN_CFLAGS ?= -I$(call bcastgen_sh,$(BCASTGEN_PREFIX)/include/bcastgen)
BCASTGEN_FLAGS ?=

# The generator as a prerequisite: its path if it names a file.
ifeq ($(BCASTGEN),$(call bcastgen_sh,$(bcastgen_default)))
bcastgen_bin := $(if $(wildcard $(call bcastgen_esc,$(bcastgen_default))),$(call bcastgen_esc,$(bcastgen_default)))
else
bcastgen_bin := $(if $(findstring /,$(firstword $(BCASTGEN))),$(wildcard $(firstword $(BCASTGEN))))
endif
bcastgen_run = $(BCASTGEN) $(BCASTGEN_FLAGS) $*.lua -o $*.c -M $*.bcastgen.d -MT $*.bcastgen-stamp

ifneq ($(strip $(BCASTGEN_SPECS)),)
ifneq ($(filter-out %.lua,$(BCASTGEN_SPECS)),)
$(error BCASTGEN_SPECS: $(filter-out %.lua,$(BCASTGEN_SPECS)): a spec's name ends in .lua)
endif
bcastgen_stems := $(BCASTGEN_SPECS:.lua=)

# Run bcastgen on a declared spec, and record when.
$(bcastgen_stems:=.bcastgen-stamp): %.bcastgen-stamp: %.lua $(bcastgen_bin)
	$(bcastgen_run)
	@touch $@

# A declared spec's .c, and its .h after it: made again if deleted.
$(bcastgen_stems:=.c): %.c: %.bcastgen-stamp
	@test -f $*.c && test -f $*.h || $(bcastgen_run)
$(bcastgen_stems:=.h): %.h: %.c
	@test -f $@ || $(bcastgen_run)

.PRECIOUS: $(bcastgen_stems:=.bcastgen-stamp)
bcastgen_depfiles := $(wildcard $(bcastgen_stems:=.bcastgen.d))
else

# Any NAME.c and NAME.h whose NAME.lua exists: made again if deleted.
%.c %.h: %.bcastgen-stamp
	@test -f $*.c && test -f $*.h || $(bcastgen_run)

# Run bcastgen on a spec, and record when.
%.bcastgen-stamp: %.lua $(bcastgen_bin)
	$(bcastgen_run)
	@touch $@

.PRECIOUS: %.bcastgen-stamp
bcastgen_found := $(patsubst ./%,%,$(shell find . -name '.?*' -prune -o \
	\( -name '*.lua' -o -name '*.bcastgen.d' \) -print 2>/dev/null))
bcastgen_depfiles := $(filter %.bcastgen.d,$(bcastgen_found))
bcastgen_stems := $(basename $(filter %.lua,$(bcastgen_found)))

# Keep the NAME.c and NAME.h of every spec found from being deleted as
# intermediate files (net.c of the chain net.o <- net.c <-
# net.bcastgen-stamp, when no rule names it). Naming them here makes them
# ordinary files: a deleted one is generated again, and what is built
# from it rebuilt. Not .SECONDARY, which would make them intermediate
# even where the Makefile names them (a deleted net.h would not be made
# again); nor the patterns %.c %.h, which would keep the files of every
# other %.c or %.h rule too (lex's, yacc's), half-written ones of an
# interrupted make included. bcastgen itself never leaves a half-written
# file: it writes each one whole under another name, then renames it.
.PRECIOUS: $(bcastgen_stems:=.c) $(bcastgen_stems:=.h)
endif

# The depfiles' rules, and the declared specs' own, must not become the
# default goal.
-include $(bcastgen_depfiles)
.DEFAULT_GOAL := $(bcastgen_goal)

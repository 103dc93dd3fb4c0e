# playground.mk: make playground, included by the top Makefile. Writes
# $(O)/playground/bcastgen.html: one self-contained page that runs the
# generator (gen/*.c, the embedded templates and Debian's Lua 5.4,
# compiled with Debian's emscripten) in the browser. See
# playground/README.md.
#
# Lua's sources come from Debian's source package lua5.4, fetched by
# playground/lua-source.sh with a private apt configuration under
# $(PG)/lua (the system's apt lists are not touched).
#
# Debian's emscripten 3.1.6 here: its JS tools (acorn-optimizer.js)
# require node modules that Debian installs in /usr/share/nodejs, which
# only Debian's own node searches, not this one (EMCC_ENV sets
# NODE_PATH). The code it generates to load the wasm calls fetch()
# whenever fetch is a function: in the browser, a -sSINGLE_FILE=1 build
# fetches its own data: URL; under node 18 or later (which have fetch),
# a build with a .wasm file fetches the file's path and fails ("Failed
# to parse URL"). So the wasm is built as a file of its own and
# playground/assemble.py puts it in the page (gzipped, in base64); the
# page compiles it once and gives each run its instance through
# instantiateWasm: no fetch() at all. Nothing of the system is edited;
# emscripten's prebuilt, frozen cache is used as it is.

PG = $(O)/playground
EMCC = emcc
EMCC_NODE_PATH = $(subst $(eval) ,:,$(wildcard /usr/share/emscripten/node_modules \
	/usr/share/nodejs /usr/lib/nodejs))
EMCC_ENV = env NODE_PATH='$(EMCC_NODE_PATH)' PYTHONDONTWRITEBYTECODE=1
PG_OPT = -Os
PG_CFLAGS = $(PG_OPT) -std=c99 -Igen -I$(O) -I$(PG)/lua/lua5.4/src -I$(PG)/include
# As Debian builds liblua5.4 (debian/rules: make linux, -std=gnu99,
# LUA_COMPAT_5_3), without dlopen.
PG_LUA_CFLAGS = $(PG_OPT) -std=gnu99 -DLUA_COMPAT_5_3 -DLUA_USE_POSIX -I$(abspath $(PG)/include)
PG_LDFLAGS = $(PG_OPT) -sMODULARIZE=1 -sEXPORT_NAME=bcastgenModule -sINVOKE_RUN=0 \
	-sEXIT_RUNTIME=1 -sALLOW_MEMORY_GROWTH=1 -sINITIAL_MEMORY=16MB -sENVIRONMENT=web \
	-sEXPORTED_RUNTIME_METHODS=callMain,FS
PG_OBJS = $(GEN_SRCS:%.c=$(PG)/obj/%.o) $(PG)/obj/embedded.o $(PG)/obj/posix.o
PG_LUA_STAMP = $(PG)/lua/lua5.4/src/lapi.c
PG_PAGE = playground/page.html playground/playground.js playground/assemble.py

.PHONY: playground playground-deps

# What is missing is installed first (PLAYGROUND_DEPS without their
# recommended packages), then a fresh make sees it.
playground: playground-deps
	@$(MAKE) --no-print-directory -s $(SUB_JOBS) $(PG)/bcastgen.html

playground-deps:
	@$(MAKE) --no-print-directory deps DEPS='gcc make pkg-config liblua5.4-dev python3 dpkg-dev' \
		BIG_DEPS='$(PLAYGROUND_DEPS)'

$(PG)/bcastgen.html: $(PG)/bcastgen.js $(PG)/bcastgen.wasm $(PG_PAGE) $(O)/bcastgen
	$(QUIET_GEN)v=$$($(O)/bcastgen --version | sed -n 's/^bcastgen //p'); \
	[ -n "$$v" ] || { echo "make playground: $(O)/bcastgen --version gave no version" >&2; exit 1; }; \
	python3 playground/assemble.py --version "$$v" --page playground/page.html \
		--glue playground/playground.js --module $(PG)/bcastgen.js \
		--wasm $(PG)/bcastgen.wasm -o $@

$(PG)/bcastgen.wasm: $(PG)/bcastgen.js
$(PG)/bcastgen.js: $(PG_OBJS) $(PG)/liblua.a
	$(QUIET_LINK)$(EMCC_ENV) $(EMCC) $(PG_LDFLAGS) -o $@ $(PG_OBJS) $(PG)/liblua.a

# Debian's Lua source, when it is not there yet.
$(PG_LUA_STAMP):
	$(QUIET_GEN)sh playground/lua-source.sh $(PG)/lua

# luaconf.h as Debian patches it includes the multiarch header that
# Debian's build writes; here the triplet is emscripten's.
$(PG)/include/lua5.4-deb-multiarch.h:
	@mkdir -p $(@D)
	@printf '#ifndef _LUA_DEB_MULTIARCH_\n#define _LUA_DEB_MULTIARCH_\n#define DEB_HOST_MULTIARCH "%s"\n#endif\n' \
		wasm32-emscripten >$@

# Lua's src/*.c but the interpreter and the compiler, in one emcc.
$(PG)/liblua.a: $(PG_LUA_STAMP) $(PG)/include/lua5.4-deb-multiarch.h $(PG)/CFLAGS
	@rm -rf $(PG)/obj/lua && mkdir -p $(PG)/obj/lua
	$(QUIET_CC)src=$$(cd $(PG)/lua/lua5.4/src && pwd); \
	files=; for f in "$$src"/*.c; do \
		case $$f in */lua.c|*/luac.c) ;; *) files="$$files $$f" ;; esac; \
	done; \
	cd $(PG)/obj/lua && $(EMCC_ENV) $(EMCC) $(PG_LUA_CFLAGS) -I"$$src" -c $$files
	$(QUIET_LINK)rm -f $@ && $(EMCC_ENV) emar rcs $@ $(PG)/obj/lua/*.o

$(PG)/obj/gen/%.o: gen/%.c $(PG)/CFLAGS $(PG_LUA_STAMP) $(PG)/include/lua5.4-deb-multiarch.h
	@mkdir -p $(@D)
	$(QUIET_CC)$(EMCC_ENV) $(EMCC) $(PG_CFLAGS) -MMD -MP -c -o $@ $<

$(PG)/obj/embedded.o: $(O)/embedded.c $(PG)/CFLAGS $(PG_LUA_STAMP)
	@mkdir -p $(@D)
	$(QUIET_CC)$(EMCC_ENV) $(EMCC) $(PG_CFLAGS) -c -o $@ $<

$(PG)/obj/posix.o: playground/posix.c $(PG)/CFLAGS
	@mkdir -p $(@D)
	$(QUIET_CC)$(EMCC_ENV) $(EMCC) $(PG_CFLAGS) -c -o $@ $<

# Rebuild the playground when its flags or the compiler change.
$(PG)/CFLAGS: FORCE
	@mkdir -p $(@D)
	@echo '$(EMCC) $(PG_CFLAGS) $(PG_LUA_CFLAGS) $(PG_LDFLAGS)' \
		"$$($(EMCC_ENV) $(EMCC) --version 2>/dev/null | head -n 1)" >$@.new; \
	if cmp -s $@.new $@; then rm $@.new; else mv $@.new $@; fi

-include $(wildcard $(PG)/obj/gen/*.d)

# catalogue/lib.sh: the helpers that the SETUP column of cases.txt calls,
# sourced by t035-catalogue.t. Each runs in the case's own directory,
# which already holds the sentinels k.c, k.h and k.d.

# spec BODY [FILE]: write BODY, with printf's backslash escapes (\n, and
# \0 for a raw NUL byte; \\0 gives Lua's own escape), to FILE (s.lua).
spec() {
	printf '%b\n' "$1" >"${2:-s.lua}"
}

# tmpl FILE [BODY]: copy the built-in templates to t/ and replace FILE
# with BODY (printf's escapes); with BODY '-', remove FILE instead; with
# no BODY, leave it as it is.
tmpl() {
	mkdir -p t && cp "$TEMPLATES"/* t/ || return 1
	if [ $# = 1 ]; then
		return 0
	elif [ "$2" = - ]; then
		rm -f "t/$1"
	else
		printf '%b\n' "$2" >"t/$1"
	fi
}

# rep STRING N: STRING repeated N times, with no newline. STRING must
# not hold '&', '/' or a backslash (sed's replacement).
rep() {
	printf "%${2}s" '' | sed "s/ /$1/g"
}

# operands N [SHAPE]: N operands a1=SHAPE ... aN=SHAPE (SHAPE 1), one word each.
operands() {
	awk -v n="$1" -v s="${2-1}" 'BEGIN { for (i = 1; i <= n; i++) printf "a%d=%s ", i, s }'
}

# sentinel PATH: an existing output that a failed run must leave as it is.
sentinel() {
	printf 'sentinel %s: a failed run must not change this file\n' "$1" >"$1"
	chmod 640 "$1"
	touch -d '2001-01-01 00:00:00' "$1"
}

# device NAME: a private copy of /dev/full (major 1, minor 7) in the case
# directory. A build that replaces device nodes by regular files would
# destroy the system's /dev/full; this one it may destroy harmlessly.
device() {
	mknod "$1" c 1 7 2>/dev/null || skip "cannot create a device node here (mknod)"
}

# skip REASON: do not run this case; it is reported as skipped.
skip() {
	skip_reason=$1
}

# devices_safe: skip the case unless the binary writes into a device node
# named as an output instead of replacing it (tried on a private
# /dev/null), so that a case naming a real device cannot destroy it.
devices_safe() {
	mkdir .probe && mknod .probe/null c 1 3 2>/dev/null \
		|| { rm -rf .probe; skip "cannot create a device node here (mknod)"; return; }
	"$GEN" -o .probe/p.c -M .probe/null x=3 >/dev/null 2>&1
	[ -c .probe/null ] || skip "this bcastgen replaces a device node named as an output"
	rm -rf .probe
}

# need_sysfs: skip the case unless sysfs is mounted at /sys.
need_sysfs() {
	[ -d /sys/kernel ] || skip "no sysfs at /sys"
}

#!/bin/sh
# run.sh DIR NAME SECONDS [FLAG...]: run the harness DIR/fuzz_NAME for
# SECONDS on its corpus: what it finds goes to WORK/corpus/NAME, crashes,
# leaks and hangs to WORK/crashes/NAME-* (WORK is $FUZZ_WORK, or DIR);
# the committed seeds under tests/fuzz/NAME are read, never written.
# Exits non-zero on a finding; a run longer than $FUZZ_TIMEOUT (60) s
# of wall time is a hang (a spec may take 10 s of processor time, which
# under ASan on a busy machine can be three times as long).
name=$2 seconds=$3
work=${FUZZ_WORK:-$1}
mkdir -p "$work/corpus/$name" "$work/crashes" || exit 1
# The harnesses run in a scratch directory: every path absolute.
bin=$(cd "$1" && pwd) dir=$(cd "$work" && pwd) fuzz=$(cd "$(dirname "$0")" && pwd)
shift 3
set -- -max_total_time="$seconds" -timeout=${FUZZ_TIMEOUT:-60} -rss_limit_mb=2048 \
	-print_final_stats=1 -artifact_prefix="$dir/crashes/$name-" "$@"
[ -f "$fuzz/$name.dict" ] && set -- -dict="$fuzz/$name.dict" "$@"
# The generator's messages on stderr would drown libFuzzer's.
case $name in spec|pipeline) set -- -close_fd_mask=2 "$@" ;; esac
exec "$bin/fuzz_$name" "$@" "$dir/corpus/$name" "$fuzz/$name"

# explain.sh: sourced by t100-explain.t and regen.sh. explain_run FILE
# prints what FILE should hold: its first line, "$ bcastgen ARGS", then
# what `bcastgen ARGS` prints on stdout and stderr, then its exit status.
explain_run() {
	cmd=$(head -n 1 "$1")
	printf '%s\n' "$cmd"
	# shellcheck disable=SC2086
	rc=0
	"$GEN" ${cmd#\$ bcastgen } 2>&1 || rc=$?
	printf '[exit %d]\n' $rc
}

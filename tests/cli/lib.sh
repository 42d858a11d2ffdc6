# Shared helpers for the `rkbare` command-line tests (sourced, POSIX sh).
#
# The sourcing script sets CMD, the subcommand under test. This builds the
# host tool, makes a scratch directory $tmp (removed on exit) and counts
# failed expectations in $failures: a script ends with [ "$failures" -eq 0 ].

top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
make --no-print-directory -s host >/dev/null || exit 1

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
rk=build/host/rkbare
failures=0

# expect STATUS PATTERN ARGS...: `rkbare $CMD ARGS...` exits with STATUS
# and prints PATTERN on stderr.
expect() {
	want=$1
	pattern=$2
	shift 2
	"$rk" "$CMD" "$@" >"$tmp/out" 2>"$tmp/err"
	got=$?
	if [ "$got" -ne "$want" ] || ! grep -q -- "$pattern" "$tmp/err"; then
		echo "FAIL: rkbare $CMD $*: status $got (want $want), stderr:"
		sed 's/^/    /' "$tmp/err"
		failures=$((failures + 1))
	fi
}

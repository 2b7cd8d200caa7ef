#!/usr/bin/env bash
# Symbol versions: libc6-dbg's symbol table names pthread_mutex_lock
# "pthread_mutex_lock@@GLIBC_2.2.5" (the default version); rows, folded
# stacks and --symbol print and match the plain name.  versioned_calls spends
# most of its time locking a mutex, so that function is among the top rows.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
[ -x "$WORKLOADS/versioned_calls" ] || skip_all "workload versioned_calls not built"
"$PMIPROF" record -q -g -o "$TMPD/t.data" -- "$WORKLOADS/versioned_calls" 0.5 >/dev/null 2>"$TMPD/err" \
	|| { not_ok "record versioned_calls" "$(cat "$TMPD/err")"; done_testing; }
rep() { "$PMIPROF" report -q -i "$TMPD/t.data" --comm versioned_calls "$@" 2>>"$TMPD/err"; }
rep --format csv >"$TMPD/r.csv"
n=$(awk -F, '$3 == "pthread_mutex_lock" && $4 == "libc.so.6" { print $1 }' "$TMPD/r.csv")
[ "${n:-0}" -gt 10 ] && ! grep -q '@@' "$TMPD/r.csv" \
	&& ok "flat profile: pthread_mutex_lock [libc.so.6] $n samples, no name with @@VERSION" \
	|| not_ok "plain pthread_mutex_lock row" "$(grep -e pthread_mutex -e @@ "$TMPD/r.csv" | head -4)"
rep --format folded | grep -q '@@' && not_ok "folded stacks without @@VERSION" "$(rep --format folded | grep -m2 @@)" \
	|| ok "folded stacks without @@VERSION"
m=$(rep --symbol pthread_mutex_lock --format csv | awk -F, 'NR > 1 { s += $1 } END { print s + 0 }')
[ "$m" = "$n" ] && ok "--symbol pthread_mutex_lock matches its $m samples" || not_ok "--symbol plain name" "$m vs $n"
grep -v '^warning' "$TMPD/err" | grep -q . && not_ok "reports without errors" "$(cat "$TMPD/err")"
done_testing

#!/usr/bin/env bash
# pmiprof top -g: Enter on a function without source lines shows its
# callers instead, by share of its samples (the first other function up
# each sample's frame-pointer stack, with the fp leaf fix-up).  The callgraph
# workload, its debug info stripped: leaf_shared is called by caller_a and
# caller_b 2:1 by construction, and has no frame of its own (the fix-up
# restores its caller).  Run in a loop so that every few seconds hold both
# phases.  In tmux: the zoom says why (no lines, its callers), the rows are
# caller_a then caller_b at 2:1 within 8 points, Enter does not zoom further,
# Esc goes back; without -g the same zoom says there are no lines and
# shows no callers; --from a daemon (the callers from its profile's
# stacks) gives the same 2:1.
. "$(dirname "$0")/../lib.sh"
[ "$(id -u)" -eq 0 ] || skip_all "needs root (perf events)"
have_perf_sw || skip_all "perf_event_open not usable here"
command -v tmux >/dev/null || skip_all "tmux not installed (tests/deps.sh)"
command -v objcopy >/dev/null || skip_all "objcopy not installed (binutils)"

sock=$TMPD/tmux.sock
tm() { tmux -S "$sock" "$@"; }
trap 'for s in "$TMPD"/tmux*.sock; do tmux -S "$s" kill-server 2>/dev/null; done; rm -rf "$TMPD"' EXIT
screen() { tm capture-pane -p -t top; }
wait_for() {
	local i
	for ((i = 0; i < ${2:-10} * 5; i++)); do
		screen | grep -Eq -- "$1" && return 0
		sleep 0.2
	done
	return 1
}
objcopy --strip-debug "$WORKLOADS/callgraph" "$TMPD/cgnd" || skip_all "objcopy --strip-debug failed"

# zoom_leaf NAME OPTIONS: top on the workload loop (its own unless OPTIONS has
# --from), then the function leaf_shared's zoom
zoom_leaf() {
	local run="-F 1000 -- sh -c 'while :; do \"$TMPD/cgnd\" 1; done >/dev/null'"
	[[ $2 == --from* ]] && run=
	tm kill-server 2>/dev/null
	sock=$TMPD/tmux$1.sock	# a server of its own: the last one may still be exiting
	tm new-session -d -s top -x 130 -y 30 \
		"'$PMIPROF' top $2 -d 1 --decay 6 --by function $run; echo \"top exited \$?\"; sleep 60"
	wait_for ' leaf_shared ' 15 || { not_ok "$1: leaf_shared's row" "$(screen)"; return 1; }
	sleep 6	# the window: 6 s, a dozen runs of both phases
	tm send-keys -t top f
	sleep 0.3
	tm send-keys -t top -l leaf_shared
	tm send-keys -t top Enter
	wait_for 'filter: leaf_shared' 5
	tm send-keys -t top Enter
	wait_for '^lines of leaf_shared' 5
}

# callers NAME: the screen's caller rows are caller_a, caller_b at 2:1 within 8 points
callers() {
	screen >"$TMPD/callers"
	python3 - "$TMPD/callers" <<'PY' >"$TMPD/res"
import sys
rows = [l.split() for l in open(sys.argv[1]) if ' caller_a ' in l or ' caller_b ' in l]
s = {r[-2]: float(r[0]) for r in rows}
print('# caller_a %.1f %%, caller_b %.1f %%, rows %s' % (s.get('caller_a', 0), s.get('caller_b', 0), [r[-2] for r in rows]))
ok = [r[-2] for r in rows] == ['caller_a', 'caller_b'] and abs(s['caller_a'] - 66.7) <= 8 and abs(s['caller_b'] - 33.3) <= 8
print('ok' if ok else 'bad')
PY
	head -1 "$TMPD/res"
	[ "$(tail -1 "$TMPD/res")" = ok ] && ok "$1: callers of leaf_shared: caller_a, caller_b at 2:1 within 8 points" ||
		not_ok "$1: callers 2:1" "$(cat "$TMPD/callers")"
}

if zoom_leaf g -g; then
	wait_for 'no source lines .*: its callers instead' 5 && screen | grep -q ' CALLER ' &&
		ok "-g: a function without lines zooms into its callers" || not_ok "-g zoom: callers" "$(screen)"
	callers -g
	tm send-keys -t top Enter
	sleep 1.5
	screen | grep -q '^lines of leaf_shared' && ok "Enter on a caller: no deeper zoom" ||
		not_ok "no zoom from a caller" "$(screen)"
	tm send-keys -t top Escape
	wait_for ' FUNCTION ' 5 && ! screen | grep -q '^lines of' && ok "Esc: back to the functions" ||
		not_ok "Esc back" "$(screen)"
	tm send-keys -t top q
	wait_for '^top exited 0' 5 && ok "q: exit 0" || not_ok "q" "$(screen)"
fi
if zoom_leaf none ""; then
	wait_for '^lines of leaf_shared: [0-9]+ samples; no source lines' 5 &&
		! screen | grep -q 'its callers instead' && ! screen | grep -q ' caller_a ' &&
		ok "without -g: no lines, no callers" || not_ok "without -g" "$(screen)"
	tm send-keys -t top q
fi

# --from a daemon (its profile's stacks): the same callers, of every copy on the machine
dp=; lp=
trap 'for s in "$TMPD"/tmux*.sock; do tmux -S "$s" kill-server 2>/dev/null; done;
      [ -n "$dp" ] && kill -9 $dp 2>/dev/null; [ -n "$lp" ] && kill $lp 2>/dev/null; rm -rf "$TMPD"' EXIT
daemon_start "$TMPD/log" --dir "$TMPD/d" --segment 2 --listen 127.0.0.1:0 -F 1000 -e cpu-clock
if [ -n "$port" ]; then
	sh -c 'while :; do "$1" 1; done >/dev/null' sh "$TMPD/cgnd" &
	lp=$!
	if zoom_leaf from "--from http://127.0.0.1:$port"; then
		wait_for "^lines of leaf_shared: [0-9]+ samples; the daemon's profile has no source lines for it: its callers instead" 5 &&
			ok "--from: a function without lines in the profile zooms into its callers" ||
			not_ok "--from zoom: callers" "$(screen)"
		callers --from
		tm send-keys -t top q
	fi
	kill $lp; lp=
else
	not_ok "daemon serving" "$(cat "$TMPD/log")"
fi
done_testing

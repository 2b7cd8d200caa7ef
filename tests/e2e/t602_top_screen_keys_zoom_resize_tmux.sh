#!/usr/bin/env bash
# pmiprof top's screen in tmux (capture-pane) on the 50/30/20 workload
# (tests/workloads/shares): the process row; Enter zooms into its functions,
# work_a/b/c in that order within 5 points of 50/30/20 after a few
# refreshes; Enter on work_a zooms into its source lines; Esc goes back
# each step; s changes the sort column; f filters by name; ? shows the
# help; a 60x20 terminal still shows the header, the key line and every
# name whole or cut where the cut form is unique; q quits with status 0.
. "$(dirname "$0")/../lib.sh"
[ "$(id -u)" -eq 0 ] || skip_all "needs root (perf events)"
have_perf_sw || skip_all "perf_event_open not usable here"
command -v tmux >/dev/null || skip_all "tmux not installed (tests/deps.sh)"

sock=$TMPD/tmux.sock
tm() { tmux -S "$sock" "$@"; }
trap 'tm kill-server 2>/dev/null; rm -rf "$TMPD"' EXIT
screen() { tm capture-pane -p -t top; }
# wait up to $2 s (default 10) for the screen to match regex $1
wait_for() {
	local i
	for ((i = 0; i < ${2:-10} * 5; i++)); do
		screen | grep -Eq -- "$1" && return 0
		sleep 0.2
	done
	return 1
}

tm new-session -d -s top -x 120 -y 30 \
	"'$PMIPROF' top -d 1 --decay 3 -F 1000 -- '$WORKLOADS/shares' 120; echo \"top exited \$?\"; sleep 60"
wait_for ' shares$' 10 && ok "the process row" || not_ok "the process row" "$(screen)"
screen | grep -q '^pmiprof top: refresh' && screen | grep -q 'EnterZoom.*qQuit' &&
	ok "header and key line" || not_ok "header and key line" "$(screen)"

tm send-keys -t top Enter
wait_for '^functions of process [0-9]+ \(shares\)' 5 && ok "Enter: the process's functions" ||
	not_ok "Enter zooms into the process" "$(screen)"
sleep 4	# three refreshes of the zoomed rows: the window is 3 s
screen >"$TMPD/funcs"
awk '/ work_[abc] /{ for (i = 1; i <= NF; i++) if ($i ~ /^work_[abc]$/) print $i, $1 }' "$TMPD/funcs" >"$TMPD/order"
order=$(cut -d' ' -f1 "$TMPD/order" | tr '\n' ' ')
echo "# functions: $(tr '\n' ' ' <"$TMPD/order")"
[ "$order" = "work_a work_b work_c " ] && ok "work_a, work_b, work_c in order" || not_ok "order" "$(cat "$TMPD/funcs")"
python3 - "$TMPD/order" <<'PY' && ok "shares within 5 points of 50/30/20" || not_ok "shares 50/30/20" "$(cat "$TMPD/order")"
import sys
s = dict(l.split() for l in open(sys.argv[1]))
sys.exit(0 if all(abs(float(s[f]) - e) <= 5 for f, e in (('work_a', 50), ('work_b', 30), ('work_c', 20))) else 1)
PY

tm send-keys -t top Enter	# the cursor is on the first row: work_a
wait_for '^lines of work_a' 5 && wait_for ' shares\.c:[0-9]+' 5 && ok "Enter on work_a: its source lines" ||
	not_ok "Enter zooms into the function's lines" "$(screen)"
tm send-keys -t top Escape
wait_for '^functions of process' 5 && ! screen | grep -q '^lines of' && ok "Esc: back to the functions" ||
	not_ok "Esc back to functions" "$(screen)"
tm send-keys -t top BSpace
wait_for ' COMMAND' 5 && ! screen | grep -q '^functions of' && ok "Backspace: back to the processes" ||
	not_ok "Backspace back to processes" "$(screen)"

tm send-keys -t top s
wait_for 'sort: cpu-clock' 5 && ok "s: sort by the next column (cpu-clock)" || not_ok "s sorts" "$(screen)"
tm send-keys -t top f w o r k Enter
wait_for 'filter: work' 5 && wait_for '\(no samples' 3 && ok "f: a filter no process matches shows none" ||
	not_ok "f filters" "$(screen)"
tm send-keys -t top f Escape
wait_for ' shares$' 5 && ok "f then Esc: the filter cleared" || not_ok "filter cleared" "$(screen)"
tm send-keys -t top '?'
wait_for 'pmiprof top: keys' 5 && ok "?: the help screen" || not_ok "? help" "$(screen)"
tm send-keys -t top x
wait_for ' shares$' 5 && ok "any key leaves the help" || not_ok "leave help" "$(screen)"

tm resize-window -t top -x 60 -y 20
sleep 1.5
screen >"$TMPD/small"
lines=$(wc -l <"$TMPD/small")
width=$(awk '{ if (length($0) > w) w = length($0) } END { print w }' "$TMPD/small")
grep -q '^pmiprof top: refresh' "$TMPD/small" && grep -q 'EnterZoom' "$TMPD/small" &&
	grep -Eq ' shares$' "$TMPD/small" && [ "$width" -le 60 ] &&
	ok "60x20: header, whole name, key line, $lines lines of at most $width columns" ||
	not_ok "60x20 screen" "$(cat "$TMPD/small")"
tm send-keys -t top Enter
wait_for ' work_a( |$)' 5 && ok "60x20: zoomed functions still named" || not_ok "60x20 zoom" "$(screen)"
# every row is one line: a row's text never runs onto the next one
screen | sed -n '5,19p' | grep -Ev '^ +[0-9]+\.[0-9] |^$' >"$TMPD/stray"
[ ! -s "$TMPD/stray" ] && ok "60x20: no row runs onto the next line" || not_ok "stray lines" "$(screen)"

tm send-keys -t top q
wait_for '^top exited 0' 5 && ok "q quits, status 0" || not_ok "q quits" "$(screen)"
done_testing

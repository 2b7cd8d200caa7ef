#!/usr/bin/env bash
# The human table of 'report': names are never cut into something ambiguous,
# its width follows the terminal (COLUMNS, the tty's size) or --width, with no
# limit when stdout is not a terminal (as perf); one unit per number column,
# in its heading: cpu-clock/task-clock (ns) in ms, every cell with the same
# scale (no '86.0M' beside '87241017'); --by dso shows file names, the path
# beside them.  CSV keeps its raw values.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
command -v cc >/dev/null || skip_all "no C compiler"
cat > "$TMPD/long.c" <<'C'
#include <stdlib.h>
volatile unsigned long sink;
#define BUSY(name, n) __attribute__((noinline)) void name(void) \
	{ for (unsigned long i = 0; i < (n); i++) sink += i * i; }
BUSY(compute_the_partial_derivatives_of_the_boundary_layer_first, 60000000UL)
BUSY(compute_the_partial_derivatives_of_the_boundary_layer_second, 40000000UL)
int main(void)
{
	compute_the_partial_derivatives_of_the_boundary_layer_first();
	compute_the_partial_derivatives_of_the_boundary_layer_second();
	return 0;
}
C
cc -O1 -g -fno-omit-frame-pointer -o "$TMPD/long" "$TMPD/long.c" || skip_all "cannot build the workload"
"$PMIPROF" record -e cpu-clock,task-clock,page-faults -F 2000 -q -o "$TMPD/t.data" -- "$TMPD/long" ||
	skip_all "record failed"
a=compute_the_partial_derivatives_of_the_boundary_layer_first
b=compute_the_partial_derivatives_of_the_boundary_layer_second

# Not a terminal: no width limit, the names whole.
"$PMIPROF" report -i "$TMPD/t.data" > "$TMPD/pipe" 2>&1
grep -q " $a  *long$" "$TMPD/pipe" && grep -q " $b  *long$" "$TMPD/pipe" &&
	ok "not a terminal: both long names whole" || not_ok "names whole (pipe)" "$(cat "$TMPD/pipe")"
# --width 80 forces a narrow table: the two names share 55 characters, a cut
# at the name column would make them the same: they stay whole.
"$PMIPROF" report -i "$TMPD/t.data" --width 80 > "$TMPD/w80" 2>&1
grep -q " $a " "$TMPD/w80" && grep -q " $b " "$TMPD/w80" &&
	ok "--width 80: names sharing a long prefix are not cut" || not_ok "not cut at 80" "$(cat "$TMPD/w80")"
dups=$(awk '/^ *samples /{ t = 1; next } t && /^ *[0-9]/ { print $NF, $(NF-1) }' "$TMPD/w80" | sort | uniq -d)
[ -z "$dups" ] && ok "--width 80: no two rows show the same name" || not_ok "ambiguous rows" "$dups"
grep -q '^# hidden to fit 80 columns' "$TMPD/w80" && ok "--width 80: the table fits 80 columns (columns hidden, said)" ||
	not_ok "width 80 followed" "$(cat "$TMPD/w80")"

# A terminal: COLUMNS, else the tty's size (TIOCGWINSZ).
if command -v script > /dev/null && script -qc true /dev/null > /dev/null 2>&1; then
	script -qc "COLUMNS=64 '$PMIPROF' report -i '$TMPD/t.data'" /dev/null | tr -d '\r' > "$TMPD/tty64"
	grep -q '^# hidden to fit 64 columns' "$TMPD/tty64" && ok "terminal: COLUMNS=64 followed" ||
		not_ok "COLUMNS" "$(cat "$TMPD/tty64")"
	script -qc "stty cols 66; unset COLUMNS; '$PMIPROF' report -i '$TMPD/t.data'" /dev/null | tr -d '\r' > "$TMPD/tty66"
	grep -q '^# hidden to fit 66 columns' "$TMPD/tty66" && ok "terminal: the tty's 66 columns followed" ||
		not_ok "TIOCGWINSZ" "$(cat "$TMPD/tty66")"
else
	skip "terminal: COLUMNS followed" "script(1) cannot make a pty here"
	skip "terminal: the tty's columns followed" "script(1) cannot make a pty here"
fi

# Units: ns clocks in ms, the unit in the heading, the same decimals in every cell.
grep -Eq '^ *samples +% +\+-95% +cpu-clk\(ms\) +task-clk\(ms\) +faults +symbol' "$TMPD/pipe" &&
	ok "headings carry the unit: cpu-clk(ms) task-clk(ms)" || not_ok "unit headings" "$(grep samples "$TMPD/pipe")"
bad=$(awk '/^ *samples /{ t = 1; next } t && /^ *[0-9]/ && ($4 !~ /^[0-9]+\.[0-9][0-9][0-9]$/ ||
	$5 !~ /^[0-9]+\.[0-9][0-9][0-9]$/ || $6 !~ /^[0-9]+$/ || $1 !~ /^[0-9]+$/)' "$TMPD/pipe")
[ -z "$bad" ] && ok "every cell of a column has the column's scale (ms.xxx, exact counts)" ||
	not_ok "one scale per column" "$bad"
"$PMIPROF" report -i "$TMPD/t.data" --format csv > "$TMPD/csv"
head -1 "$TMPD/csv" | grep -qx 'samples,percent,symbol,dso,cpu-clock,task-clock,page-faults,ci95_low,ci95_high,dso_path,srcline' &&
	ok "csv: the same columns" || not_ok "csv header" "$(head -1 "$TMPD/csv")"
csv=$(awk -F, -v n="$a" '$3 == n { print $5 }' "$TMPD/csv")
tab=$(awk -v n="$a" '$NF == "long" && $(NF-1) == n { print $4 }' "$TMPD/pipe")
echo "$csv" | grep -Eq '^[0-9]+$' && awk -v c="$csv" -v t="$tab" 'BEGIN { exit !(t != "" && c / 1e6 - t < 0.001 && t - c / 1e6 < 0.001) }' &&
	ok "csv raw ns ($csv), table the same in ms ($tab)" || not_ok "csv raw / table ms" "csv $csv table $tab"

# --by dso: the file name, the path beside it, never the cut-off end of a path.
"$PMIPROF" report -i "$TMPD/t.data" --by dso --width 60 > "$TMPD/dso" 2>&1
grep -Eq "^ .* long +$TMPD/long\$" "$TMPD/dso" && ok "--by dso: file name, then the whole path" ||
	not_ok "by dso" "$(cat "$TMPD/dso")"
grep -Eq ' +dso +path$' "$TMPD/dso" && ok "--by dso: columns dso and path" || not_ok "by dso heading" "$(cat "$TMPD/dso")"
done_testing

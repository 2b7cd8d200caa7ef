#!/usr/bin/env bash
# Accuracy: the shares workload calls work_a, work_b and work_c (the same
# loop) 5, 3 and 2 times per round, so their sample shares must be 50/30/20 %
# within 3 points.  Symbolized here from the trace's MMAP record and the
# ELF symbol table (nm), independently of the report.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
command -v nm >/dev/null && command -v readelf >/dev/null || skip_all "binutils (nm, readelf) not installed"
bin=$WORKLOADS/shares
"$PMIPROF" record -q -o "$TMPD/t.data" -- "$bin" -n 800 >/dev/null 2>"$TMPD/err"; rc=$?
[ $rc -eq 0 ] && ok "record shares" || not_ok "record shares" "$(cat "$TMPD/err")"
"$PMIPROF" dump -i "$TMPD/t.data" >"$TMPD/dump" 2>&1
nm -S --defined-only "$bin" | awk '$4 ~ /^work_[abc]$/ { print $4, $1, $2 }' >"$TMPD/syms"
[ "$(wc -l <"$TMPD/syms")" -eq 3 ] && ok "work_a/b/c found in the symbol table" || not_ok "symbols found" "$(cat "$TMPD/syms")"
# vaddr = ip - map start + pgoff - p_offset + p_vaddr of the executable segment
seg=$(readelf -lW "$bin" | awk '$1=="LOAD" && $7 ~ /E/ { print $2, $3; exit }')
perl -e '
	my ($symf, $dump, $off, $vaddr) = @ARGV;
	my (@s, $start, $pgoff, %n, $tot);
	open(S, $symf) or die; while (<S>) { my ($nm, $a, $l) = split; push @s, [$nm, hex($a), hex($l)] }
	open(D, $dump) or die;
	while (<D>) {
		if (/ mmap .*start=(0x[0-9a-f]+) .*pgoff=(0x[0-9a-f]+) .*workloads\/shares"/) { $start = hex($1); $pgoff = hex($2); next }
		next unless / sample .*ip=(0x[0-9a-f]+)/ && defined $start;
		my $v = hex($1) - $start + $pgoff - hex($off) + hex($vaddr);
		$tot++;
		for (@s) { if ($v >= $_->[1] && $v < $_->[1] + $_->[2]) { $n{$_->[0]}++; last } }
	}
	my $in = ($n{work_a} // 0) + ($n{work_b} // 0) + ($n{work_c} // 0);
	printf "%d %d %.2f %.2f %.2f\n", $tot, $in, map { $in ? 100 * ($n{$_} // 0) / $in : 0 } qw(work_a work_b work_c);
' "$TMPD/syms" "$TMPD/dump" $seg >"$TMPD/shares"
read -r tot in a b c <"$TMPD/shares"
echo "# samples $tot, in work_*: $in, shares a=$a b=$b c=$c (expect 50/30/20)"
[ "${in:-0}" -gt 5000 ] && ok "most samples land in work_* ($in of $tot)" || not_ok "samples land in work_*" "$in of $tot"
within() { perl -e 'exit(abs($ARGV[0] - $ARGV[1]) <= 3 ? 0 : 1)' "$1" "$2"; }
within "$a" 50 && ok "work_a share $a% = 50 +- 3" || not_ok "work_a share $a% = 50 +- 3"
within "$b" 30 && ok "work_b share $b% = 30 +- 3" || not_ok "work_b share $b% = 30 +- 3"
within "$c" 20 && ok "work_c share $c% = 20 +- 3" || not_ok "work_c share $c% = 20 +- 3"
done_testing

#!/usr/bin/env bash
# report keeps a per-user copy of /proc/kallsyms (0600, keyed by boot id, uid
# and /proc/modules) and gives the same profile from it; a cache file others
# could have written is ignored, and PMIPROF_KALLSYMS_CACHE=0 bypasses it.
# The parsed table is cached beside it (.idx, 0600) and mapped by the next
# report: that report names kernel addresses from it; a damaged index or
# one others could have written is ignored.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open of software events not permitted here"
head -1 /proc/kallsyms | grep -qv '^0* ' || skip_all "/proc/kallsyms shows no addresses (kptr_restrict or not root)"
export XDG_CACHE_HOME=$TMPD/cache
"$PMIPROF" record -q -o "$TMPD/t.data" -- "$WORKLOADS/dlexec" >/dev/null 2>&1
PMIPROF_KALLSYMS_CACHE=0 "$PMIPROF" report -i "$TMPD/t.data" --format csv >"$TMPD/nocache.csv" 2>/dev/null
[ ! -d "$XDG_CACHE_HOME/pmiprof" ] && ok "PMIPROF_KALLSYMS_CACHE=0 writes no cache" || not_ok "PMIPROF_KALLSYMS_CACHE=0 writes no cache"
grep -q 'kernel.kallsyms' "$TMPD/nocache.csv" || skip_all "the recording has no kernel samples to symbolize"
"$PMIPROF" report -i "$TMPD/t.data" --format csv >"$TMPD/first.csv" 2>/dev/null
f=$(ls "$XDG_CACHE_HOME"/pmiprof/kallsyms-* 2>/dev/null | grep -v '\.idx$' | head -1)
[ -n "$f" ] && [ "$(stat -c %a "$f")" = 600 ] && ok "first report stores the cache, mode 0600" || not_ok "first report stores the cache, mode 0600" "$(ls -la "$XDG_CACHE_HOME/pmiprof" 2>&1)"
"$PMIPROF" report -i "$TMPD/t.data" --format csv >"$TMPD/second.csv" 2>/dev/null
cmp -s "$TMPD/nocache.csv" "$TMPD/first.csv" && cmp -s "$TMPD/first.csv" "$TMPD/second.csv" &&
	ok "profiles from /proc/kallsyms and from the cache are identical" || not_ok "profiles from /proc/kallsyms and from the cache are identical" "$(diff "$TMPD/nocache.csv" "$TMPD/second.csv" | head)"
idx=$f.idx
[ -n "$f" ] && [ -f "$idx" ] && [ "$(stat -c %a "$idx")" = 600 ] && ok "the parsed table is stored beside it (.idx), mode 0600" ||
	not_ok "the parsed table is stored beside it (.idx), mode 0600" "$(ls -la "$XDG_CACHE_HOME/pmiprof" 2>&1)"
# a kernel symbol of the profile, renamed in the index (same length: layout kept)
ksym=$(awk -F, '$4 == "[kernel.kallsyms]" && length($3) >= 6 && $3 ~ /^[A-Za-z_][A-Za-z0-9_]*$/ { print $3; exit }' "$TMPD/first.csv")
if [ -f "$idx" ] && [ -n "$ksym" ]; then
	cp "$idx" "$TMPD/idx.orig"
	fake=$(printf 'Q%.0s' $(seq 1 ${#ksym}))
	LC_ALL=C sed "s/\([tTwW]\) $ksym\x00/\1 $fake\x00/g" "$TMPD/idx.orig" >"$idx"
	"$PMIPROF" report -i "$TMPD/t.data" --format csv >"$TMPD/idx.csv" 2>/dev/null
	grep -q "^[0-9]*,[0-9.]*,$fake,\[kernel.kallsyms\]" "$TMPD/idx.csv" &&
		ok "the next report names kernel addresses from the index" ||
		not_ok "the next report names kernel addresses from the index" "$ksym -> $fake: $(head -5 "$TMPD/idx.csv")"
	chmod 0666 "$idx"
	"$PMIPROF" report -i "$TMPD/t.data" --format csv >"$TMPD/idx.csv" 2>/dev/null
	! grep -q "$fake" "$TMPD/idx.csv" && cmp -s "$TMPD/first.csv" "$TMPD/idx.csv" &&
		ok "a group/world-writable index is ignored" || not_ok "a group/world-writable index is ignored"
	# cut short: the sizes in its header no longer add up
	head -c 100000 "$TMPD/idx.orig" >"$idx" && chmod 0600 "$idx"
	"$PMIPROF" report -i "$TMPD/t.data" --format csv >"$TMPD/idx.csv" 2>/dev/null
	cmp -s "$TMPD/first.csv" "$TMPD/idx.csv" && ok "a truncated index is ignored, same profile" ||
		not_ok "a truncated index is ignored, same profile" "$(diff "$TMPD/first.csv" "$TMPD/idx.csv" | head)"
	# damaged inside: a symbol offset far past the names (bytes 40..43: the first symbol's name)
	cp "$TMPD/idx.orig" "$idx"
	mods=$(od -An -tu4 -j12 -N4 "$idx" | tr -d ' ')
	printf '\377\377\377\177' | dd of="$idx" bs=1 seek=$((24 + (mods * 4 + 7) / 8 * 8 + 8)) conv=notrunc 2>/dev/null
	"$PMIPROF" report -i "$TMPD/t.data" --format csv >"$TMPD/idx.csv" 2>/dev/null
	cmp -s "$TMPD/first.csv" "$TMPD/idx.csv" && ok "an index with a name offset out of bounds is ignored, same profile" ||
		not_ok "an index with a name offset out of bounds is ignored, same profile" "$(diff "$TMPD/first.csv" "$TMPD/idx.csv" | head)"
	# damaged everywhere: every symbol's name offset past the names (found where a
	# lookup lands, not at load: the index is dropped then and the text parsed)
	cp "$TMPD/idx.orig" "$idx"
	perl -e 'open(my $f, "+<", $ARGV[0]) or die; binmode $f; read($f, my $h, 24) == 24 or die;
		my ($n, $m) = unpack("x8 V V", $h); my $o = 24 + int(($m * 4 + 7) / 8) * 8;
		for my $i (0 .. $n - 1) { seek($f, $o + $i * 16 + 8, 0); print $f pack("V", 0x7fffffff); }
		close $f or die' "$idx"
	"$PMIPROF" report -i "$TMPD/t.data" --format csv >"$TMPD/idx.csv" 2>/dev/null
	cmp -s "$TMPD/first.csv" "$TMPD/idx.csv" && ok "an index with every name offset out of bounds is ignored, same profile" ||
		not_ok "an index with every name offset out of bounds is ignored, same profile" "$(diff "$TMPD/first.csv" "$TMPD/idx.csv" | head)"
	rm -f "$idx"
else
	skip "index names the report" "no plain kernel symbol in the profile to rename"
fi
if [ -n "$f" ]; then
	sed 's/^\([0-9a-f]*\) \([tT]\) .*/\1 \2 poisoned_symbol/' "$f" >"$f.new" && mv "$f.new" "$f" && chmod 0666 "$f"
	"$PMIPROF" report -i "$TMPD/t.data" --format csv >"$TMPD/third.csv" 2>/dev/null
	! grep -q poisoned_symbol "$TMPD/third.csv" && cmp -s "$TMPD/first.csv" "$TMPD/third.csv" &&
		ok "a group/world-writable cache file is ignored" || not_ok "a group/world-writable cache file is ignored"
fi
done_testing

#!/usr/bin/env bash
# report keeps a per-user copy of /proc/kallsyms (0600, keyed by boot id, uid
# and /proc/modules) and gives the same profile from it; a cache file others
# could have written is ignored, and PMIPROF_KALLSYMS_CACHE=0 bypasses it.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open of software events not permitted here"
head -1 /proc/kallsyms | grep -qv '^0* ' || skip_all "/proc/kallsyms shows no addresses (kptr_restrict or not root)"
export XDG_CACHE_HOME=$TMPD/cache
"$PMIPROF" record -q -o "$TMPD/t.data" -- "$WORKLOADS/dlexec" >/dev/null 2>&1
PMIPROF_KALLSYMS_CACHE=0 "$PMIPROF" report -i "$TMPD/t.data" --format csv >"$TMPD/nocache.csv" 2>/dev/null
[ ! -d "$XDG_CACHE_HOME/pmiprof" ] && ok "PMIPROF_KALLSYMS_CACHE=0 writes no cache" || not_ok "PMIPROF_KALLSYMS_CACHE=0 writes no cache"
grep -q 'kernel.kallsyms' "$TMPD/nocache.csv" || skip_all "the recording has no kernel samples to symbolize"
"$PMIPROF" report -i "$TMPD/t.data" --format csv >"$TMPD/first.csv" 2>/dev/null
f=$(ls "$XDG_CACHE_HOME"/pmiprof/kallsyms-* 2>/dev/null | head -1)
[ -n "$f" ] && [ "$(stat -c %a "$f")" = 600 ] && ok "first report stores the cache, mode 0600" || not_ok "first report stores the cache, mode 0600" "$(ls -la "$XDG_CACHE_HOME/pmiprof" 2>&1)"
"$PMIPROF" report -i "$TMPD/t.data" --format csv >"$TMPD/second.csv" 2>/dev/null
cmp -s "$TMPD/nocache.csv" "$TMPD/first.csv" && cmp -s "$TMPD/first.csv" "$TMPD/second.csv" &&
	ok "profiles from /proc/kallsyms and from the cache are identical" || not_ok "profiles from /proc/kallsyms and from the cache are identical" "$(diff "$TMPD/nocache.csv" "$TMPD/second.csv" | head)"
if [ -n "$f" ]; then
	sed 's/^\([0-9a-f]*\) \([tT]\) .*/\1 \2 poisoned_symbol/' "$f" >"$f.new" && mv "$f.new" "$f" && chmod 0666 "$f"
	"$PMIPROF" report -i "$TMPD/t.data" --format csv >"$TMPD/third.csv" 2>/dev/null
	! grep -q poisoned_symbol "$TMPD/third.csv" && cmp -s "$TMPD/first.csv" "$TMPD/third.csv" &&
		ok "a group/world-writable cache file is ignored" || not_ok "a group/world-writable cache file is ignored"
fi
done_testing

#!/usr/bin/env bash
# pmiprof list shows only the events that open on this machine, libpfm4's
# too: without a hardware PMU, a CPU model libpfm4 recognises (forced here
# with LIBPFM_FORCE_PMU=amd64_fam19h_zen4, what it detects on a Zen 4 VM)
# adds no lines, only a count of what is not listed; --all lists them marked
# [not supported]; descriptions are whole, never cut at 70 characters.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
have_perf_hw && skip_all "a hardware PMU is present: forced libpfm4 events may open here"
export LIBPFM_FORCE_PMU=amd64_fam19h_zen4
"$PMIPROF" list --all --pfm > "$TMPD/all" 2>&1
n_all=$(grep -c '^  amd64_fam19h_zen4::' "$TMPD/all")
[ "$n_all" -gt 20 ] || skip_all "libpfm4 here does not know amd64_fam19h_zen4 ($n_all events)"
"$PMIPROF" list > "$TMPD/list" 2>&1; rc=$?
[ $rc -eq 0 ] && ok "list exits 0" || not_ok "list exit" "rc=$rc"
n=$(grep -c 'amd64_fam19h_zen4::' "$TMPD/list")
[ "$n" -eq 0 ] && ok "no PMU: none of the $n_all libpfm4 Zen 4 events listed" || not_ok "zen4 events listed" "$n listed"
grep -q '^  cpu-clock ' "$TMPD/list" && ok "software events still listed" || not_ok "cpu-clock listed" "$(cat "$TMPD/list")"
grep -Eq '^[0-9]+ event\(s\) libpfm4 or perf know are not listed: they cannot be opened here .*--all' "$TMPD/list" &&
	ok "the hidden events are counted, --all named" || not_ok "hidden count" "$(cat "$TMPD/list")"
hid=$(sed -n 's/^\([0-9]*\) event(s) libpfm4.*/\1/p' "$TMPD/list")
[ "${hid:-0}" -ge "$n_all" ] && ok "the count ($hid) covers the Zen 4 events ($n_all)" ||
	not_ok "hidden count value" "hidden $hid, zen4 $n_all"
# A long name has its description on the next line.
bad=$(awk '/^  amd64_fam19h_zen4::/ { name = $1; if (NF > 1) { if ($2 !~ /^\[not/) print name; name = "" } next }
	name != "" { if ($1 !~ /^\[not/) print name; name = "" }' "$TMPD/all" | head -3)
[ -z "$bad" ] && ok "--all marks each of them [not supported]" || not_ok "--all marks" "$bad"
# Whole descriptions: the wrapped lines joined give libpfm4's full text.
joined=$(tr -s ' \n' '  ' < "$TMPD/all")
if grep -q 'RETIRED_SSE_AVX_FLOPS' "$TMPD/all"; then
	echo "$joined" | grep -q 'RETIRED_SSE_AVX_FLOPS \[not supported\] This is a retire-based event\. .* requires the MergeEvent' &&
		ok "a 180-character description printed whole" || not_ok "whole description" "$(grep -A4 RETIRED_SSE_AVX_FLOPS "$TMPD/all")"
else
	skip "a long description printed whole" "this libpfm4 has no RETIRED_SSE_AVX_FLOPS"
fi
long=$(awk 'length($0) > 100' "$TMPD/all" | head -3)
[ -z "$long" ] && ok "lines wrapped at 100 columns" || not_ok "wrapped" "$long"
done_testing

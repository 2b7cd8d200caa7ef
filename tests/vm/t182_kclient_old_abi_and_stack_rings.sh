#!/usr/bin/env bash
# ABI 1.2 compatibility, with tests/vm/kclient_abi.c on pmu=emul: a client
# acting as ABI 1.1 (192-byte config, 16-byte stats request) keeps its
# fixed-size 112-byte records; a client asking for fp stacks gets a ring
# marked variable-length (header record_size 0, so a 1.1 reader stops
# instead of misparsing), records that step by their own size and carry
# frames, and a CONSUME inside a record is refused with EINVAL.  GET_INFO
# reports ABI 1.2 with CAP_STACKS.  Kernel log clean.
. "$(dirname "$0")/lib.sh"
vm_require module
vm_static kclient_abi "$PMIPROF_TOP/tests/vm/kclient_abi.c" || skip_all "cannot build a static program (libc.a missing?)"
vm_static hot_function "$PMIPROF_TOP/tests/vm/hot_function.c" || skip_all "cannot build a static program"

vm_run --timeout 400 --insmod 'pmu=emul' --add "$TMPD/kclient_abi" --add "$TMPD/hot_function" -- sh -c '
	kclient_abi info >/export/info.txt 2>&1
	kclient_abi record -1 -m pmi -p 512000 -e 0xc0:0 -e 0x3c:0 -- hot_function 1 >/export/old.txt 2>&1
	echo "old=$?"
	kclient_abi record -g -k -m pmi -p 512000 -e 0xc0:0 -e 0x3c:0 -- hot_function 1 >/export/new.txt 2>&1
	echo "new=$?"
	rmmod pmiprof; echo "rmmod=$?"
	dmesg > /export/dmesg.txt'
[ $VM_RC -eq 0 ] && ok "guest run completed" || not_ok "guest run completed" "status $VM_RC" "$(tail -n 20 "$VM_STDERR")"

grep -q 'abi 1\.2' "$VM_OUT/info.txt" && ok "GET_INFO reports ABI 1.2" || not_ok "GET_INFO reports ABI 1.2" "$(cat "$VM_OUT/info.txt")"
field() { sed -n "s/.*\b$2 \([0-9]*\).*/\1/p" "$1" | head -n 1; }
o=$VM_OUT/old.txt n=$VM_OUT/new.txt
[ "$(sed -n 's/^old=//p' "$VM_STDOUT")" = 0 ] && ok "1.1-style client records" || not_ok "1.1-style client records" "$(cat "$o")"
[ "$(field "$o" record_size)" = 112 ] && [ "$(field "$o" stacks)" = 0 ] && [ "$(field "$o" bad)" = 0 ] &&
	[ "$(field "$o" records)" -gt 100 ] &&
	ok "1.1-style client: fixed 112-byte records, no stack parts, none bad ($(field "$o" records))" ||
	not_ok "1.1-style client keeps fixed-size records" "$(cat "$o")"
[ "$(sed -n 's/^new=//p' "$VM_STDOUT")" = 0 ] && ok "stack client records" || not_ok "stack client records" "$(cat "$n")"
recs=$(field "$n" records) st=$(field "$n" stacks) fr=$(field "$n" frames)
[ "$(field "$n" record_size)" = 0 ] && ok "ring header says variable-length (record_size 0)" ||
	not_ok "ring header says variable-length" "$(cat "$n")"
[ "${recs:-0}" -gt 100 ] && [ "$st" = "$recs" ] && [ "$(field "$n" bad)" = 0 ] &&
	ok "every record has a stack part and steps by its size ($recs records)" ||
	not_ok "every record has a stack part" "$(cat "$n")"
# hot_function is static: glibc's start code keeps no frame pointer, so a
# walk from hot_function ends after main (about one frame a record); a walk
# cut by the per-PMI time budget (TCG is slow) may carry none.
wf=$(field "$n" with_frames)
[ "${wf:-0}" -gt 0 ] && [ $((wf * 100)) -ge $((${recs:-0} * 95)) ] && [ "${fr:-0}" -ge "$wf" ] &&
	ok "records carry frames ($wf of $recs records, $fr frames)" ||
	not_ok "records carry frames (>= 95 % of records)" "$(cat "$n")"
[ "$(field "$n" mid_consume_tried)" = 1 ] && [ "$(field "$n" mid_consume_refused)" = 1 ] &&
	ok "CONSUME inside a variable-length record is refused (EINVAL)" ||
	not_ok "CONSUME inside a record is refused" "$(cat "$n")"
[ "$(sed -n 's/^rmmod=//p' "$VM_STDOUT")" = 0 ] && ok "rmmod succeeds" || not_ok "rmmod succeeds"
vm_dmesg_clean "$VM_OUT/dmesg.txt"
done_testing

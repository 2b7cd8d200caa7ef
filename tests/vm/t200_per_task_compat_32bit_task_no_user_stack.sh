#!/usr/bin/env bash
# A 32-bit (compat) task's samples carry no user stack (issue 22 item 11):
# its frames are {u32 fp, u32 ret} and its registers 32-bit, so the
# module's 64-bit frame walk and register set would describe it wrongly.
# A per-task session with DWARF stack dumps (tests/vm/task_secure.c exec,
# as root) follows a child that execs tests/vm/spin32.c, a libc-free i386
# program (the guest kernel runs it through IA32 emulation): its user-mode
# windows are recorded with NO_USER and no stack copy.  Before the fix
# each of them carried a 4 KiB "stack" copied with the 64-bit rules.
# The frame-width rule itself is tested on the model in test_pmi_stack
# (compat_task_has_no_user_part).
. "$(dirname "$0")/lib.sh"
vm_require module
vm_static task_secure "$PMIPROF_TOP/tests/vm/task_secure.c" -pthread ||
	skip_all "cannot build a static program (libc.a missing?)"
cc -m32 -nostdlib -static -ffreestanding -fno-pic -fno-omit-frame-pointer -O1 \
	-o "$TMPD/spin32" "$PMIPROF_TOP/tests/vm/spin32.c" ||
	skip_all "cannot build a 32-bit program (cc -m32)"

vm_run --timeout 600 --insmod pmu=emul --add "$TMPD/task_secure" --add "$TMPD/spin32" -- sh -c '
	/root/bin/spin32; echo "spin32=$?"
	task_secure exec 0 /root/bin/spin32
	dmesg > /export/dmesg.txt
	rmmod pmiprof; echo "rmmod=$?"'
[ $VM_RC -eq 0 ] && ok "guest run completed" || not_ok "guest run completed" "status $VM_RC" "$(tail -n 20 "$VM_STDERR")"
sed 's/^/# /' "$VM_STDOUT"
if [ "$(sed -n 's/^spin32=//p' "$VM_STDOUT")" != 0 ]; then
	skip_all "the guest cannot run a 32-bit program (no IA32 emulation)"
fi
val() { printf '%s\n' "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }
ex=$(grep '^exec records=' "$VM_STDOUT")
[ "$(val "$ex" user)" -ge 10 ] 2>/dev/null &&
	ok "the 32-bit program was followed: $(val "$ex" user) user-mode windows" ||
	not_ok "the 32-bit program was followed (10 user-mode windows or more)" "${ex:-no result}"
# The child's windows before and inside its execve() are 64-bit and may
# carry a copy (0 or 26 per run); before the fix 6077 of 6087 records did.
st=$(val "$ex" stacks) us=$(val "$ex" user)
[ -n "$ex" ] && [ $((st * 100)) -lt "$us" ] && [ "$(val "$ex" nouser)" -ge "$us" ] &&
	ok "no user stack copied from the 32-bit task (stacks=$st, under 1% of $us user windows; no-user=$(val "$ex" nouser))" ||
	not_ok "no user stack copied from the 32-bit task" "${ex:-no result}"
[ "$(val "$ex" bad)" = 0 ] && ok "no malformed record" || not_ok "no malformed record" "$ex"
[ "$(sed -n 's/^rmmod=//p' "$VM_STDOUT")" = 0 ] && ok "rmmod" || not_ok "rmmod"
vm_dmesg_clean "$VM_OUT/dmesg.txt"
done_testing

#!/usr/bin/env bash
# A trace recorded in the guest (Debian's 6.1 kernel, /usr/bin/threads2)
# and reported on the host.  Plain: the workload is [unknown] 0xOFFSET rows (its recorded
# path does not exist here) and the guest's kernel addresses are NOT named
# with the host's kallsyms ([unknown] and a note).  --symfs pointing at the
# guest's files names busy_one/busy_two.  'pmiprof archive' made in the
# guest names them too, and the guest kernel's functions: the same ones the
# guest's own report names.
. "$(dirname "$0")/lib.sh"
vm_require
[ -e /usr/bin/threads2 ] && skip_all "/usr/bin/threads2 exists on the host: the guest path would resolve here"
vm_run --timeout 500 -- sh -c '
	uname -r > /export/uname.txt
	pmiprof record -o /export/g.data -- threads2 1 2>/export/record.err; echo "record=$?"
	pmiprof archive -i /export/g.data -o /export/g.tar.gz 2>/export/archive.err; echo "archive=$?"
	pmiprof report -i /export/g.data --format csv >/export/guest.csv 2>/export/guest.err
	mkdir -p /export/root/usr/bin && cp /usr/bin/threads2 /export/root/usr/bin/'
[ $VM_RC -eq 0 ] && ok "guest run completed" || { not_ok "guest run completed" "status $VM_RC" "$(tail -n 20 "$VM_STDERR")"; done_testing; }
[ "$(sed -n 's/^record=//p' "$VM_STDOUT")" = 0 ] && ok "guest record on kernel $(cat "$VM_OUT/uname.txt")" ||
	{ not_ok "guest record" "$(cat "$VM_OUT/record.err")"; done_testing; }
[ "$(sed -n 's/^archive=//p' "$VM_STDOUT")" = 0 ] && grep -q 'archived [1-9][0-9]* ELF file.* and kallsyms' "$VM_OUT/archive.err" &&
	ok "guest archive with ELF files and kallsyms" || not_ok "guest archive with ELF files and kallsyms" "$(cat "$VM_OUT/archive.err")"
[ "$(uname -r)" != "$(cat "$VM_OUT/uname.txt")" ] || [ "$(cat /proc/sys/kernel/random/boot_id)" != "$("$PMIPROF" dump -i "$VM_OUT/g.data" | sed -n 's/^boot id: *"\(.*\)"/\1/p')" ] ||
	skip_all "host and guest run the same boot"

user_fns() { awk -F, 'NR > 1 && $4 == "threads2" { print $3 }' "$1" | sort -u | tr '\n' ' '; }
kernel_fns() { awk -F, 'NR > 1 && $4 == "[kernel.kallsyms]" { print $3 }' "$1" | sort -u | tr '\n' ' '; }
guest_user=$(user_fns "$VM_OUT/guest.csv")
guest_kernel=$(kernel_fns "$VM_OUT/guest.csv")
case "$guest_user" in *busy_one*busy_two*) ok "the guest's own report names busy_one, busy_two" ;;
	*) not_ok "the guest's own report names busy_one, busy_two" "$(head -5 "$VM_OUT/guest.csv")" ;; esac

r() { "$PMIPROF" report -i "$VM_OUT/g.data" --format csv "$@"; }
r >"$TMPD/plain.csv" 2>"$TMPD/plain.err"
# a missing file's addresses are [unknown] rows, one per file offset, never a name
named=$(awk -F, 'NR > 1 && $4 == "threads2" && $3 !~ /^\[unknown\]( 0x[0-9a-f]+)?$/ { print $3 }' "$TMPD/plain.csv")
[ -n "$(user_fns "$TMPD/plain.csv")" ] && [ -z "$named" ] && ok "host, plain: /usr/bin/threads2 is [unknown] (0xOFFSET rows)" ||
	not_ok "host, plain: /usr/bin/threads2 is [unknown]" "$(head -5 "$TMPD/plain.csv")"
if [ -n "$guest_kernel" ]; then
	[ "$(kernel_fns "$TMPD/plain.csv")" = "[unknown] " ] && ok "host, plain: no host kernel names for guest kernel samples" ||
		not_ok "host, plain: no host kernel names for guest kernel samples" "$(grep kernel.kallsyms "$TMPD/plain.csv" | head -5)"
	grep -q '\[kernel.kallsyms\]: recorded by another kernel or boot' "$TMPD/plain.err" && ok "host, plain: a note says why" ||
		not_ok "host, plain: a note says why" "$(cat "$TMPD/plain.err")"
else
	skip "host, plain: no host kernel names for guest kernel samples" "no kernel samples in the guest trace"
fi
r --symfs "$VM_OUT/root" >"$TMPD/symfs.csv" 2>"$TMPD/err"
case "$(user_fns "$TMPD/symfs.csv")" in *busy_one*busy_two*) ok "host, --symfs guest files: busy_one, busy_two" ;;
	*) not_ok "host, --symfs guest files: busy_one, busy_two" "$(head -5 "$TMPD/symfs.csv")" "$(cat "$TMPD/err")" ;; esac
r --archive "$VM_OUT/g.tar.gz" >"$TMPD/arch.csv" 2>"$TMPD/err"
[ "$(user_fns "$TMPD/arch.csv")" = "$guest_user" ] && ok "host, --archive: the guest's user functions" ||
	not_ok "host, --archive: the guest's user functions" "host: $(user_fns "$TMPD/arch.csv")" "guest: $guest_user" "$(cat "$TMPD/err")"
if [ -n "$guest_kernel" ]; then
	[ "$(kernel_fns "$TMPD/arch.csv")" = "$guest_kernel" ] && ok "host, --archive: the guest kernel's names ($(echo "$guest_kernel" | wc -w))" ||
		not_ok "host, --archive: the guest kernel's names" "host: $(kernel_fns "$TMPD/arch.csv")" "guest: $guest_kernel"
else
	skip "host, --archive: the guest kernel's names" "no kernel samples in the guest trace"
fi
done_testing

#!/usr/bin/env bash
# kernel/60-pmiprof.rules is valid: udevadm verify where this udev has it
# (252 has not), and always a parser check of every line: comma-separated
# KEY{attr}OP"value" pairs with known keys, match keys with ==, assignments
# with =; it matches the misc device pmiprof and gives it group pmiprof,
# mode 0660.  make install puts it in UDEVDIR.  Host only.
. "$(dirname "$0")/../lib.sh"
rule=$PMIPROF_TOP/kernel/60-pmiprof.rules
if udevadm verify --help >/dev/null 2>&1; then
	udevadm verify "$rule" >"$TMPD/verify" 2>&1 && ok "udevadm verify accepts the rule" ||
		not_ok "udevadm verify accepts the rule" "$(cat "$TMPD/verify")"
else
	echo "# udevadm $(udevadm --version 2>/dev/null || echo absent) has no verify: parser check only"
fi
check_rule() {
	awk '
	/^[ \t]*(#|$)/ { next }
	{
		line = $0; n = 0
		while (length(line)) {
			sub(/^[ \t]*,?[ \t]*/, "", line)
			if (!match(line, /^[A-Z_]+(\{[^}]*\})?(==|!=|\+=|-=|:=|=)"[^"]*"/)) { print NR": "$0; break }
			pair = substr(line, 1, RLENGTH); line = substr(line, RLENGTH + 1)
			key = pair; sub(/[{=!+:-].*/, "", key)
			op = pair; sub(/^[A-Z_]+(\{[^}]*\})?/, "", op); sub(/".*/, "", op)
			match_key = key ~ /^(KERNEL|SUBSYSTEM|ACTION|DRIVER|ATTR|ENV|TAG|DEVPATH|NAME)$/
			assign_key = key ~ /^(GROUP|MODE|OWNER|TAG|ENV|SYMLINK|RUN)$/
			if (!match_key && !assign_key) { print NR": unknown key "key; break }
			if (op == "==" && !match_key) { print NR": "key" cannot be matched"; break }
			if (op == "=" && !assign_key) { print NR": "key" cannot be assigned"; break }
			n++
		}
	}' "$1"
}
bad=$(check_rule "$rule")
[ -z "$bad" ] && ok "every rule line parses as KEY OP \"value\" pairs" || not_ok "every rule line parses" "$bad"
grep -Eq '^KERNEL=="pmiprof", SUBSYSTEM=="misc", GROUP="pmiprof", MODE="0660"$' "$rule" &&
	ok "the rule gives /dev/pmiprof group pmiprof, mode 0660" ||
	not_ok "the rule gives /dev/pmiprof group pmiprof, mode 0660" "$(cat "$rule")"
# The checker itself rejects a broken rule.
printf 'KERNEL="pmiprof", GROUP=="pmiprof"\n' >"$TMPD/bad.rules"
[ -n "$(check_rule "$TMPD/bad.rules")" ] && ok "the parser check rejects a rule with = and == swapped" ||
	not_ok "the parser check rejects a rule with = and == swapped"
make -s -C "$PMIPROF_TOP" install DESTDIR="$TMPD/root" PREFIX=/usr O="$PMIPROF_BUILD" >"$TMPD/install.log" 2>&1
[ -f "$TMPD/root/etc/udev/rules.d/60-pmiprof.rules" ] && [ -x "$TMPD/root/usr/bin/pmiprof" ] &&
	[ -f "$TMPD/root/usr/src/pmiprof-$(sed -n 's/^VERSION *:= *//p' "$PMIPROF_TOP/Makefile")/dkms.conf" ] &&
	[ -f "$TMPD/root/usr/share/man/man1/pmiprof.1" ] &&
	ok "make install puts binary, man page, udev rule and DKMS source in place" ||
	not_ok "make install puts binary, man page, udev rule and DKMS source in place" \
		"$(tail -n 20 "$TMPD/install.log"; cd "$TMPD/root" 2>/dev/null && find . -type f | head -n 30)"
done_testing

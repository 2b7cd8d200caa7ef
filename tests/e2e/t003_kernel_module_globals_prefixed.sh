#!/usr/bin/env bash
# Kernel-maintainer hygiene of pmiprof.ko: every global symbol the module
# defines is pmiprof_-prefixed (the rest is static), so it cannot clash with
# the kernel's or another module's names.  Needs the module built (make
# module, which make check does when kernel headers are installed).
. "$(dirname "$0")/../lib.sh"
ko="$(dirname "$0")/../../kernel/pmiprof.ko"
[ -f "$ko" ] || skip_all "kernel/pmiprof.ko not built (no kernel headers)"
command -v nm >/dev/null || skip_all "nm not installed"
nm "$ko" | awk '$2 ~ /^[TDBR]$/ { print $3 }' \
	| grep -Ev '^(pmiprof_|__|_|init_module$|cleanup_module$)' >"$TMPD/bad"
[ ! -s "$TMPD/bad" ] && ok "every global of pmiprof.ko is pmiprof_-prefixed" \
	|| not_ok "globals without the pmiprof_ prefix" "$(head -20 "$TMPD/bad")"
n=$(nm "$ko" | awk '$2 ~ /^[TDBR]$/ && $3 ~ /^pmiprof_/' | wc -l)
[ "$n" -gt 10 ] && ok "the module defines $n pmiprof_ globals (nm read it)" || not_ok "nm found the module's globals" "$n"
done_testing

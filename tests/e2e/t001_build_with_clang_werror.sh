#!/usr/bin/env bash
# The whole user-space tree builds warning-free with clang as well as gcc
# (CI builds both with -Wall -Wextra -Werror; `make check` itself is the gcc build).
. "$(dirname "$0")/../lib.sh"
command -v clang >/dev/null || skip_all "clang not installed (make deps)"
out=$(make -C "$PMIPROF_TOP" -j2 O="$TMPD/clang" CC=clang WERROR=1 2>&1)
if [ $? -eq 0 ]; then ok "clang -Wall -Wextra -Werror build succeeds"; else not_ok "clang -Wall -Wextra -Werror build succeeds" "$(echo "$out" | grep -E 'error|warning' | head -20)"; fi
done_testing

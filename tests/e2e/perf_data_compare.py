#!/usr/bin/env python3
# Compare pmiprof report --format csv of a perf.data with perf report --stdio of
# the same file (tests/e2e/t255_*): per row, each event's share of its period
# (pmiprof: the event column over its total; perf: the Overhead column, one
# per event in a group view) within TOL points.
#   perf_data_compare.py PERF_TXT OURS_CSV KEYCOL NEVENTS [TOL [MIN]]
# KEYCOL: the csv column that perf's sort key prints (dso: its basename);
# "children": report --children's children and self columns, keyed
# "dso symbol", against perf report --children --sort dso,sym (NEVENTS 2).
# Rows of either side at or above MIN percent must be in both.  Code without
# a symbol is one "[unknown]" row on both sides (perf prints each address,
# pmiprof "[unknown] 0x.. <nearest>") and not compared: which
# code each names differs (other programs' under -a); perf's "[JIT] tid N" is
# pmiprof's "//anon", perf's "name@plt" pmiprof's "[plt]"; C++ names are
# compared without their parameters.  Prints one
# line per compared row; exit 1 on any miss.
import csv
import os
import re
import sys

perf_txt, ours_csv, keycol, nev = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
tol = float(sys.argv[5]) if len(sys.argv) > 5 else 0.1
low = float(sys.argv[6]) if len(sys.argv) > 6 else 0.5

perf = {}
for line in open(perf_txt, errors="replace"):
    if line.startswith("#") or not line.strip():
        continue
    f = line.split()
    pcts = []
    while f and f[0].endswith("%"):
        pcts.append(float(f.pop(0)[:-1]))
    if len(pcts) < nev or not f:
        continue
    f = [t for t in f if not re.fullmatch(r"\[.\]", t)]
    if keycol in ("symbol", "children") and f:
        sym = " ".join(f[1:] if keycol == "children" else f)
        # code without a symbol: perf prints its address, pmiprof "[unknown]"
        if re.fullmatch(r"0x[0-9a-f]+", sym):
            sym = "[unknown]"
        # PLT entries: perf's "name@plt" / "@plt", pmiprof's "[plt]"
        if sym.endswith("@plt"):
            sym = "[plt]"
        f = f[:1] + [sym] if keycol == "children" else [sym]
    key = " ".join(f)
    # anonymous executable memory without a perf-PID.map: perf's name, pmiprof's
    key = re.sub(r"^\[JIT\] tid \d+$", "anon", key)
    old = perf.get(key, [0.0] * nev)
    perf[key] = [a + b for a, b in zip(old, pcts[:nev])]

rows = list(csv.reader(open(ours_csv)))
head, body = rows[0], rows[1:]
if keycol == "children":
    # shares of samples, which perf's period shares equal at a fixed period (-c)
    k, d = head.index("symbol"), head.index("dso")
    cols = [head.index("children"), head.index("self")]
    ours = {}
    for r in body:
        if r[k] == "[truncated]":
            continue	# pmiprof's row for stacks that end before a root; perf has none
        sym = "[unknown]" if r[k].startswith("[unknown]") else re.sub(r"\(.*\)( const)?$", "", r[k])
        key = r[d] + " " + sym
        old = ours.get(key, [0.0, 0.0])
        ours[key] = [max(old[0], float(r[cols[0]])), old[1] + float(r[cols[1]])]
    body = []
else:
    k = head.index(keycol)
# the event columns follow the key columns (samples, percent, key[, dso])
first = k + 2 if keycol == "symbol" else k + 1
totals = [sum(float(r[first + e]) for r in body) for e in range(nev)]
if keycol != "children":
    ours = {}
for r in body:
    key = os.path.basename(r[k]) if keycol == "dso" and r[k].startswith("/") else r[k]
    # "[unknown] 0xOFF <nearest+0x..>", "[plt]": no function symbol, as perf's addresses
    if keycol == "symbol" and key.startswith("[unknown]"):
        key = "[unknown]"
    # perf prints C++ names without their parameter list
    if keycol == "symbol":
        key = re.sub(r"\(.*\)( const)?$", "", key)
    old = ours.get(key, [0.0] * nev)
    ours[key] = [o + (100.0 * float(r[first + e]) / totals[e] if totals[e] else 0.0)
                 for e, o in enumerate(old)]

bad = 0
for key in sorted(set(perf) | set(ours), key=lambda x: -max(perf.get(x, ours.get(x)))):
    p, o = perf.get(key), ours.get(key)
    if key == "[unknown]" or key.endswith(" [unknown]"):
        continue	# what is unnamed differs with what each names (other programs' code under -a)
    if p is None or o is None:
        share = max(p or o)
        if share >= low:
            print("MISSING %s: perf %s pmiprof %s" % (key, p, o))
            bad = 1
        continue
    for e in range(nev):
        if abs(p[e] - o[e]) > tol:
            print("MISS %s event %d: perf %.2f pmiprof %.4f" % (key, e, p[e], o[e]))
            bad = 1
        elif max(p[e], o[e]) >= low:
            print("ok %s event %d: perf %.2f pmiprof %.4f" % (key, e, p[e], o[e]))
sys.exit(bad)

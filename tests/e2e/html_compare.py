#!/usr/bin/env python3
"""Helpers of tests t520/t521 (report --html): the data embedded in a page,
summed over a range of buckets as the page does, against `report --time`'s CSV.
  html_compare.py data PAGE FROM_S TO_S    -> prints "FROM_NS,TO_NS" (the range snapped to buckets)
  html_compare.py sum PAGE FROM_S TO_S     -> the range's rows as CSV: symbol,dso,samples,sums...
  html_compare.py browser JSON             -> the browser's rows as the same CSV
  html_compare.py cli CSV                  -> the CLI's rows as the same CSV"""
import csv, json, math, re, sys

def page_data(path):
    s = open(path, encoding='utf-8').read()
    m = re.search(r'<script id="pmiprof-data" type="application/json">(.*?)</script>', s, re.S)
    return json.loads(m.group(1))

def snap(d, a, b):
    w, nb = d['bucket_ns'], max(d['buckets'], 1)
    b0 = max(0, math.floor(a * 1e9 / w))
    b1 = min(nb - 1, max(b0, math.ceil(b * 1e9 / w) - 1))
    return b0, b1, b0 * w, (b1 + 1) * w - 1

def rows_of(d, b0, b1):
    c, bk, rows = d['fn'], 0, {}
    for k in range(len(c['i'])):
        bk += c['b'][k]
        if b0 <= bk <= b1:
            r = rows.setdefault(c['i'][k], [0] + [0] * len(d['events']))
            r[0] += c['n'][k]
            for e in range(len(d['events'])):
                r[1 + e] += c['c'][e][k]
    return sorted([d['syms'][i][0], d['syms'][i][1]] + v for i, v in rows.items())

def show(rows):
    w = csv.writer(sys.stdout, lineterminator='\n')
    for r in sorted(rows):
        w.writerow(r)

cmd = sys.argv[1]
if cmd in ('data', 'sum'):
    d = page_data(sys.argv[2])
    b0, b1, f, t = snap(d, float(sys.argv[3]), float(sys.argv[4]))
    if cmd == 'data':
        print(f'{f},{t}')
    else:
        show(rows_of(d, b0, b1))
elif cmd == 'browser':
    j = json.load(open(sys.argv[2]))
    show([[r['symbol'], r['dso'], r['samples']] + r['counts'] for r in j['range']['rows']])
elif cmd == 'cli':
    rd = csv.reader(open(sys.argv[2]))
    head = next(rd)
    ev = head[4:head.index('ci95_low')]
    ev = [e for e in ev if not re.search(r'ipc|mpki|pct|^frontend|^bad-spec|^retiring|^backend', e)]
    show([[r[2], r[3], int(r[0])] + [int(x) for x in r[4:4 + len(ev)]] for r in rd])

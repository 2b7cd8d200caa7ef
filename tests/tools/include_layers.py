#!/usr/bin/env python3
"""The stage rule of docs/architecture.md, checked on the sources: every
#include of lib/, report/ and daemon/ points to the file's own stage or one
below it, and no two files include each other through any chain.

  include_layers.py [TOP]   prints one line per violation, exit 1 if any.
"""
import os, re, sys

top = sys.argv[1] if len(sys.argv) > 1 else '.'
R = ['symbols', 'input', 'stacks', 'analysis', 'output']
D = ['engine', 'perf', 'module', 'service']
below = {'lib': {'lib'}}
for i, st in enumerate(R):
    below['report/' + st] = {'lib'} | {'report/' + x for x in R[:i + 1]}
below['report'] = {'lib', 'report'} | {'report/' + x for x in R}
below['daemon/engine'] = {'lib', 'daemon/engine'}
below['daemon/perf'] = {'lib', 'daemon/engine', 'daemon/perf'}
below['daemon/module'] = {'lib', 'daemon/engine', 'daemon/module'}
below['daemon/service'] = {'lib', 'daemon/engine', 'daemon/service'} | {'report/' + x for x in R}
below['daemon'] = {'lib', 'daemon'} | {'daemon/' + x for x in D} | {'report/' + x for x in R}

def stage_of(rel):
    parts = rel.split('/')
    if parts[0] == 'lib':
        return 'lib'
    if len(parts) == 2:
        return parts[0]
    return parts[0] + '/' + parts[1]

def resolve(rel, inc):
    """The repository path an include names, or None (system or public header)."""
    cands = [os.path.join(os.path.dirname(rel), inc), os.path.join('lib', inc),
             os.path.join('report', inc), os.path.join('daemon', inc)]
    for c in cands:
        c = os.path.normpath(c)
        if os.path.isfile(os.path.join(top, c)):
            return c
    return None

inc_re = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
files = []
for d in ('lib', 'report', 'daemon'):
    for dp, dirs, fs in os.walk(os.path.join(top, d)):
        dirs[:] = [x for x in dirs if x != 'node_modules']
        for f in fs:
            if f.endswith(('.c', '.h')):
                files.append(os.path.relpath(os.path.join(dp, f), top))
bad = 0
graph = {}
for rel in sorted(files):
    st = stage_of(rel)
    node = re.sub(r'_internal$', '', rel[:-2])
    for inc in inc_re.findall(open(os.path.join(top, rel)).read()):
        tgt = resolve(rel, inc)
        if tgt is None:
            continue
        tst = stage_of(tgt)
        if tst not in below.get(st, set()):
            print(f'{rel}: includes "{inc}" ({tst}), above or beside its stage {st}')
            bad += 1
        tnode = re.sub(r'_internal$', '', tgt[:-2])
        if tnode != node:
            graph.setdefault(node, set()).add(tnode)

# file-level include cycles (x.c, x.h and a private x_internal.h are one node)
state = {}
def visit(n, path):
    global bad
    state[n] = 1
    for m in sorted(graph.get(n, ())):
        if state.get(m) == 1:
            cyc = path[path.index(m):] + [m] if m in path else [n, m]
            print('include circle: ' + ' -> '.join(cyc))
            bad += 1
        elif not state.get(m):
            visit(m, path + [m])
    state[n] = 2
for n in sorted(graph):
    if not state.get(n):
        visit(n, [n])
print(f'{len(files)} files, {sum(len(v) for v in graph.values())} include edges, {bad} violation(s)')
sys.exit(1 if bad else 0)

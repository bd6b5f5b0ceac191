#!/usr/bin/env python3
"""Pairs of files in src/ that import each other (docs/design.md: "no two
files import each other"). Reads every `use crate::…`, `use super::…`,
`use self::…`, a module root's `use child::…`, and every `crate::`/`super::`
path in the code outside `#[cfg(test)] mod tests`, maps each to the file
that defines the module it names, and prints each pair found both ways.
Exits 1 when there is one. Usage: scripts/import_cycles.py [src]"""
import os
import re
import sys

root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), '..', 'src')
files = {}
for d, _, names in os.walk(root):
    for n in names:
        if n.endswith('.rs'):
            p = os.path.join(d, n)
            with open(p, encoding='utf-8') as f:
                files[p] = f.read()


def is_root(path):
    return os.path.basename(path)[:-3] in ('mod', 'lib', 'main')


def module_of(path):
    rel = os.path.relpath(path, root)[:-3].split(os.sep)
    return rel[:-1] if rel[-1] in ('mod', 'lib', 'main') else rel


by_module = {tuple(module_of(p)): p for p in files}


def resolve(current, path):
    """The file of the deepest module that `path`, written in `current`, names."""
    parts = path.split('::')
    here = module_of(current)
    parent = here if is_root(current) else here[:-1]
    if parts[0] == 'crate':
        base, parts = [], parts[1:]
    elif parts[0] == 'super':
        ups = 0
        while parts and parts[0] == 'super':
            ups, parts = ups + 1, parts[1:]
        base = parent[:len(parent) - (ups - 1)] if ups > 1 else parent
        if is_root(current):
            base = here[:len(here) - ups]
    elif parts[0] == 'self':
        base, parts = here, parts[1:]
    else:
        return None
    best = by_module.get(tuple(base))
    walk = list(base)
    for seg in parts:
        walk.append(seg)
        if tuple(walk) in by_module:
            best = by_module[tuple(walk)]
    return best


edges = set()
for p, text in files.items():
    text = re.sub(r'#\[cfg\(test\)\]\s*mod tests\s*\{.*', '', text, flags=re.S)
    text = re.sub(r'//[^\n]*', '', text)
    for m in re.finditer(r'\buse\s+((?:crate|super|self)(?:::\w+)*)(?:::\{([^;]*)\})?', text):
        base, group = m.group(1), m.group(2)
        targets = [base] if not group else [base + '::' + t.strip().split(' as ')[0].split('::')[0]
                                            for t in re.split(r',\s*', group) if t.strip()]
        for t in targets:
            r = resolve(p, t)
            if r and r != p:
                edges.add((p, r))
    if is_root(p):
        for m in re.finditer(r'^\s*(?:pub(?:\([\w:]+\))?\s+)?use\s+(\w+)::', text, flags=re.M):
            if m.group(1) not in ('crate', 'super', 'self', 'std', 'core', 'alloc'):
                r = resolve(p, 'self::' + m.group(1))
                if r and r != p:
                    edges.add((p, r))
    for m in re.finditer(r'\b((?:crate|super)(?:::\w+)+)', text):
        r = resolve(p, m.group(1))
        if r and r != p:
            edges.add((p, r))

pairs = sorted({tuple(sorted(e)) for e in edges if (e[1], e[0]) in edges})
for a, b in pairs:
    print(f'{os.path.relpath(a, root)} <-> {os.path.relpath(b, root)}')
print(f'{len(pairs)} pairs of files import each other', file=sys.stderr)
sys.exit(1 if pairs else 0)

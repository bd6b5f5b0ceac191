#!/usr/bin/env python3
"""Import circles of any length among the files of src/ (docs/design.md:
"no import circles"). Reads every `use crate::…`, `use super::…`,
`use self::…`, a module root's `use child::…`, and every `crate::`/`super::`
path in the code outside `#[cfg(test)] mod tests`, maps each to the file
that defines the module it names, and finds the strongly connected groups
of that graph (Tarjan's algorithm): files that reach each other through
imports. Prints each group with one shortest circle through it and exits 1
when there is one. Usage: scripts/import_cycles.py [src]"""
import collections
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


def resolve(current, path, depth=0):
    """The file of the deepest module that `path`, written in `current` inside
    `depth` inline `mod … { }` blocks, names (None for the file itself)."""
    parts = path.split('::')
    here = module_of(current)
    parent = here if is_root(current) else here[:-1]
    if parts[0] == 'crate':
        base, parts = [], parts[1:]
    elif parts[0] == 'super':
        ups = 0
        while parts and parts[0] == 'super':
            ups, parts = ups + 1, parts[1:]
        if ups <= depth:
            return None
        ups -= depth
        base = parent[:len(parent) - (ups - 1)] if ups > 1 else parent
        if is_root(current):
            base = here[:len(here) - ups]
    elif parts[0] == 'self':
        if depth:
            return None
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


def split_inline(text):
    """The text outside inline `mod name { … }` blocks, and the blocks' bodies."""
    outside, inner, at = [], [], 0
    for m in re.finditer(r'\bmod\s+\w+\s*\{', text):
        if m.start() < at:
            continue
        level, i = 1, m.end()
        while i < len(text) and level:
            level += {'{': 1, '}': -1}.get(text[i], 0)
            i += 1
        outside.append(text[at:m.start()])
        inner.append(text[m.end():i - 1])
        at = i
    outside.append(text[at:])
    return ''.join(outside), inner


def scan(p, text, depth):
    """Adds the edges of `text`, written in file `p` inside `depth` inline modules."""
    text, inner = split_inline(text)
    for body in inner:
        scan(p, body, depth + 1)
    for m in re.finditer(r'\buse\s+((?:crate|super|self)(?:::\w+)*)(?:::\{([^;]*)\})?', text):
        base, group = m.group(1), m.group(2)
        targets = [base] if not group else [base + '::' + t.strip().split(' as ')[0].split('::')[0]
                                            for t in re.split(r',\s*', group) if t.strip()]
        for t in targets:
            r = resolve(p, t, depth)
            if r and r != p:
                edges.add((p, r))
    if is_root(p) and depth == 0:
        for m in re.finditer(r'^\s*(?:pub(?:\([\w:]+\))?\s+)?use\s+(\w+)::', text, flags=re.M):
            if m.group(1) not in ('crate', 'super', 'self', 'std', 'core', 'alloc'):
                r = resolve(p, 'self::' + m.group(1))
                if r and r != p:
                    edges.add((p, r))
    for m in re.finditer(r'\b((?:crate|super)(?:::\w+)+)', text):
        r = resolve(p, m.group(1), depth)
        if r and r != p:
            edges.add((p, r))


edges = set()
for p, text in files.items():
    text = re.sub(r'#\[cfg\(test\)\]\s*mod tests\s*\{.*', '', text, flags=re.S)
    text = re.sub(r'//[^\n]*', '', text)
    scan(p, text, 0)


def groups(nodes, succ):
    """The strongly connected groups of more than one file (Tarjan, iterative)."""
    index, low, on, stack, found, counter = {}, {}, set(), [], [], [0]
    for start in sorted(nodes):
        if start in index:
            continue
        work = [(start, iter(sorted(succ[start])))]
        index[start] = low[start] = counter[0]
        counter[0] += 1
        stack.append(start)
        on.add(start)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    group = []
                    while True:
                        x = stack.pop()
                        on.discard(x)
                        group.append(x)
                        if x == v:
                            break
                    if len(group) > 1:
                        found.append(sorted(group))
            elif w not in index:
                index[w] = low[w] = counter[0]
                counter[0] += 1
                stack.append(w)
                on.add(w)
                work.append((w, iter(sorted(succ[w]))))
            elif w in on:
                low[v] = min(low[v], index[w])
    return found


def shortest_circle(group, succ):
    """A shortest circle through the group's first file (breadth-first)."""
    first, members = group[0], set(group)
    before, queue = {first: None}, collections.deque([first])
    while queue:
        v = queue.popleft()
        for w in sorted(succ[v]):
            if w == first:
                path = [v]
                while before[path[-1]] is not None:
                    path.append(before[path[-1]])
                return path[::-1] + [first]
            if w in members and w not in before:
                before[w] = v
                queue.append(w)
    return [first]


succ = collections.defaultdict(set)
for a, b in edges:
    succ[a].add(b)
circles = groups(files, succ)
for group in circles:
    names = [os.path.relpath(f, root) for f in group]
    print(f'{len(group)} files reach each other: {", ".join(names)}')
    print('  ' + ' -> '.join(os.path.relpath(f, root) for f in shortest_circle(group, succ)))
print(f'{len(circles)} import circles among the files of {os.path.relpath(root)}', file=sys.stderr)
sys.exit(1 if circles else 0)

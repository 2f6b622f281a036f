#!/usr/bin/env python3
"""Prints the dependency graph between the folders of a Swift module and its cycles.

A folder depends on another when one of its files names a type, protocol or type alias declared
in the other (comments and string literals are ignored). Exit status 1 if the graph has a cycle.

Usage: Scripts/folder-graph.py [Sources/SyncCore]
"""
import os
import re
import sys

root = sys.argv[1] if len(sys.argv) > 1 else "Sources/SyncCore"
# Top-level declarations only (no indentation): nested types are named through their parent.
declaration = re.compile(
    r"^(?:(?:public|package|internal|fileprivate|private|final|nonisolated|@\w+(?:\([^)]*\))?)\s+)*"
    r"(?:struct|class|enum|actor|protocol|typealias)\s+([A-Z][A-Za-z0-9_]*)",
    re.M,
)
identifier = re.compile(r"\b[A-Z][A-Za-z0-9_]*\b")


def strip(text):
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    text = re.sub(r'"""(?:.|\n)*?"""', '""', text)
    return re.sub(r'"(?:\\.|[^"\\\n])*"', '""', text)


files = {}
for directory, _, names in os.walk(root):
    for name in names:
        if name.endswith(".swift"):
            path = os.path.join(directory, name)
            folder = os.path.relpath(directory, root)
            with open(path, encoding="utf-8") as handle:
                files[path] = (folder, strip(handle.read()))

owner = {}
for path, (folder, text) in files.items():
    for match in declaration.finditer(text):
        owner.setdefault(match.group(1), folder)

edges = {}
for path, (folder, text) in files.items():
    for name in set(identifier.findall(text)):
        target = owner.get(name)
        if target is not None and target != folder:
            edges.setdefault(folder, {}).setdefault(target, set()).add(f"{os.path.basename(path)} -> {name}")

for folder in sorted(edges):
    print(f"{folder} -> {', '.join(sorted(edges[folder]))}")

# Cycles: strongly connected components with more than one folder.
index, low, stack, on_stack, components = {}, {}, [], set(), []
counter = [0]


def visit(node):
    index[node] = low[node] = counter[0]
    counter[0] += 1
    stack.append(node)
    on_stack.add(node)
    for successor in edges.get(node, {}):
        if successor not in index:
            visit(successor)
            low[node] = min(low[node], low[successor])
        elif successor in on_stack:
            low[node] = min(low[node], index[successor])
    if low[node] == index[node]:
        component = []
        while True:
            member = stack.pop()
            on_stack.discard(member)
            component.append(member)
            if member == node:
                break
        components.append(component)


for folder in sorted(set(edges) | {t for targets in edges.values() for t in targets}):
    if folder not in index:
        visit(folder)
cycles = [sorted(c) for c in components if len(c) > 1]
for cycle in cycles:
    print("cycle:", " <-> ".join(cycle))
    for a in cycle:
        for b in cycle:
            if b in edges.get(a, {}):
                print(f"  {a} -> {b}: {'; '.join(sorted(edges[a][b])[:4])}")
print("no cycle" if not cycles else f"{len(cycles)} cycles")
sys.exit(1 if cycles else 0)

#!/usr/bin/env python3
"""The house rules of docs/ARCHITECTURE.md, checked on the source: no import circles between
files, and imports that run one way between layers.

Reads every `use` and every inline `crate::`/`super::`/`self::` path in the three crates,
resolves each to the file that defines the module it names, and reports
- every circle between files (a strongly connected component of more than one file), and
- every import from a lower layer up to a higher one (LAYERS below).
Prints one line per finding, then 'N passed, N failed' (one check per crate and rule);
exits 1 when anything failed. `--graph` prints the edges instead.
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# crate name -> (source root, entry files). The site's two binaries share its library.
CRATES = {
    "site": ("src", ["lib.rs"]),
    "engine": ("crates/engine/src", ["lib.rs"]),
    "cli": ("crates/cli/src", ["main.rs"]),
}

# Layers, highest first: a file may import its own layer or a lower one, never a higher one.
# A module path's first segments pick its layer (the longest prefix listed wins).
LAYERS = {
    "site": [
        ["app", "main", "bin", "engine_in_browser"],
        ["pages", "lessons", "playground"],
        ["ui"],
        ["routes", "bridge", "threads", "arithmetic", "kernel_choices", "model_choice"],
        ["markdown", "worker"],
        ["content", "protocol", "model_file", "digits"],
        ["lib"],
    ],
    "engine": [
        ["lib"],
        ["reasoning", "batch_bench", "probe", "testing", "speculative_draws"],
        ["speculative", "batch"],
        ["session", "systems", "serving_sim", "acceptance"],
        ["chat", "sampler", "reference"],
        ["arch"],
        ["tokenizer", "kv_cache"],
        ["quant"],
        ["parallel", "pool"],
        ["gguf", "memory", "allocator"],
        ["error", "chi_square"],
    ],
    "cli": [["main"], ["text", "bench", "reason", "probe", "distribution", "faithfulness", "info", "depth", "simulate_serving"], ["model"], ["cli"]],
}


def module_files(src):
    """Module path (tuple) -> file, for every .rs file under src."""
    mods = {}
    for dirpath, _, files in os.walk(os.path.join(ROOT, src)):
        for name in files:
            if not name.endswith(".rs"):
                continue
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, os.path.join(ROOT, src))[:-3].split(os.sep)
            if rel[-1] == "mod":
                rel = rel[:-1]
            if rel in (["lib"], ["main"]):
                rel = []
            mods[tuple(rel)] = os.path.relpath(path, ROOT)
    return mods


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    text = re.sub(r'"(?:\\.|[^"\\])*"', '""', text)
    return re.sub(r"//[^\n]*", "", text)


def expand(tree):
    """'a::{b, c::{d, e}}' -> ['a::b', 'a::c::d', 'a::c::e']."""
    tree = tree.strip()
    depth = 0
    for i, ch in enumerate(tree):
        if ch == "{" and depth == 0:
            prefix = tree[:i]
            inner = tree[i + 1 : tree.rindex("}")]
            parts, depth2, start = [], 0, 0
            for j, c in enumerate(inner):
                if c == "{":
                    depth2 += 1
                elif c == "}":
                    depth2 -= 1
                elif c == "," and depth2 == 0:
                    parts.append(inner[start:j])
                    start = j + 1
            parts.append(inner[start:])
            return [p for part in parts if part.strip() for p in expand(prefix + part.strip())]
    return [tree.split(" as ")[0].strip()]


def paths_in(text):
    text = strip_comments(text)
    found = []
    for m in re.finditer(r"\b(?:pub(?:\([^)]*\))?\s+)?use\s+([^;]+);", text):
        found += expand(m.group(1))
    found += re.findall(r"\b(?:crate|super|self)(?:::[A-Za-z_][A-Za-z0-9_]*)+", text)
    return found


def resolve(path, here, mods):
    segs = [s for s in path.replace(" ", "").split("::") if s]
    if not segs:
        return None
    if segs[0] == "crate":
        base, rest = [], segs[1:]
    elif segs[0] in ("super", "self"):
        base = list(here)
        while segs and segs[0] in ("super", "self"):
            if segs.pop(0) == "super":
                base = base[:-1]
        rest = segs
    else:
        return None  # an external crate, or a name in scope
    full = base + rest
    for n in range(len(full), -1, -1):
        if tuple(full[:n]) in mods:
            return tuple(full[:n])
    return None


def module_of(file, mods):
    return next(m for m, f in mods.items() if f == file)


def graph(crate):
    src, _ = CRATES[crate]
    mods = module_files(src)
    edges = set()
    for mod, file in mods.items():
        # A mod.rs's own module is its folder; a file's `super` is its parent folder.
        here = mod
        with open(os.path.join(ROOT, file), encoding="utf-8") as f:
            text = f.read()
        for path in paths_in(text):
            target = resolve(path, here, mods)
            # Declaring a child module (or naming a parent module file) is structure, not use.
            if target is None or target == mod or target == mod[: len(target)]:
                continue
            edges.add((mod, target))
    return mods, edges


def sccs(nodes, edges):
    adj = {n: [] for n in nodes}
    for a, b in edges:
        adj[a].append(b)
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in adj[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            out.append(comp)

    sys.setrecursionlimit(10000)
    for n in nodes:
        if n not in index:
            visit(n)
    return [c for c in out if len(c) > 1]


def layer(crate, mod):
    name = mod[0] if mod else ("main" if crate == "cli" else "lib")
    for rank, names in enumerate(LAYERS[crate]):
        if name in names:
            return rank
    return None


def main():
    show_graph = "--graph" in sys.argv
    passed = failed = 0
    for crate in CRATES:
        mods, edges = graph(crate)
        name = lambda m: mods[m]
        if show_graph:
            for a, b in sorted(edges):
                print(f"{name(a)} -> {name(b)}")
            continue
        circles = sccs(list(mods), edges)
        for comp in circles:
            print(f"{crate}: circle: " + " <-> ".join(sorted(name(m) for m in comp)))
        ups, unknown = [], set()
        for a, b in sorted(edges):
            la, lb = layer(crate, a), layer(crate, b)
            for m, l in ((a, la), (b, lb)):
                if l is None:
                    unknown.add(name(m))
            # A module's entry (lib.rs, main.rs) declares every module: that is not a use.
            if la is not None and lb is not None and lb < la and b != ():
                ups.append(f"{crate}: upward: {name(a)} -> {name(b)}")
        for line in ups + [f"{crate}: no layer for {u}" for u in sorted(unknown)]:
            print(line)
        for ok in (not circles, not ups and not unknown):
            passed += ok
            failed += not ok
    if not show_graph:
        print(f"layout: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

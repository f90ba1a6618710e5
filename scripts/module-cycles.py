#!/usr/bin/env python3
"""The import graph of a crate's top-level modules, from its `crate::`
paths, and its cycles (strongly connected components of more than one
module). A folder module counts as one node; test code (`tests.rs`,
`*_tests.rs`, `tests/` folders, a `#[cfg(test)] mod tests` block) is left
out. Paths through the crate root's re-exports (`crate::Agent`) count as
imports of the module that defines the item, and `super::` chains are
resolved from each file's place in the tree. Not seen: paths a macro
expands to (`$crate::`), which no crate here uses across modules.

Usage: scripts/module-cycles.py CRATE_SRC [--max N]
Prints each cycle; exits 1 when a cycle has more than N modules (default 1:
any cycle fails)."""

import re
import sys
from pathlib import Path

IDENT = r"[A-Za-z_][A-Za-z0-9_]*"


def strip_comments(text: str) -> str:
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def production(text: str) -> str:
    """The file without its `#[cfg(test)] mod …` blocks (cut at the
    attribute: test modules sit at the end of a file here)."""
    m = re.search(r"#\[cfg\(test\)\]\s*(pub(\([a-z]+\))?\s+)?mod\s+" + IDENT + r"\s*\{", text)
    return text[: m.start()] if m else text


def is_test(path: Path, src: Path) -> bool:
    rel = path.relative_to(src)
    return (
        path.name == "tests.rs"
        or path.name.endswith("_tests.rs")
        or "tests" in rel.parts[:-1]
    )


def use_paths(text: str):
    """Every path that starts with `crate::`, with `use` groups expanded."""
    out = []
    for m in re.finditer(r"\buse\s+crate::([^;]+);", text):
        out.extend(expand(m.group(1).strip()))
    for m in re.finditer(r"(?<![:\w])crate::((?:" + IDENT + r"::)*" + IDENT + ")", text):
        out.append(m.group(1).split("::"))
    return out


def expand(tree: str):
    """`a::{b, c::d}` → [[a, b], [a, c, d]] (nested groups too). A renamed
    item (`x as y`) ends in its new name, the one other paths use."""
    tree = re.sub(r"\s+as\s+", "@", tree.strip())
    tree = re.sub(r"\s+", "", tree)
    if "{" not in tree:
        path = tree.split("::")
        if "@" in path[-1]:
            path[-1] = path[-1].split("@")[1]
        return [path]
    head, rest = tree.split("{", 1)
    body = rest[: rest.rfind("}")]
    parts, depth, cur = [], 0, ""
    for ch in body:
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
            continue
        depth += ch == "{"
        depth -= ch == "}"
        cur += ch
    if cur:
        parts.append(cur)
    prefix = [p for p in head.rstrip(":").split("::") if p]
    out = []
    for p in parts:
        if p == "self":
            out.append(prefix)
        else:
            out.extend(prefix + sub for sub in expand(p))
    return out


def main() -> int:
    args = sys.argv[1:]
    limit = 1
    if "--max" in args:
        i = args.index("--max")
        limit = int(args[i + 1])
        del args[i : i + 2]
    src = Path(args[0])
    root = src / "lib.rs"
    root_text = strip_comments(root.read_text())
    modules = re.findall(
        r"^\s*(?:#\[[^\]]*\]\s*)*(?:pub(?:\([^)]*\))?\s+)?mod\s+(" + IDENT + r")\s*;",
        root_text,
        re.M,
    )
    # Items the root re-exports (`pub use`, `pub(crate) use`): name → module.
    reexport = {}
    for m in re.finditer(r"pub(?:\([^)]*\))?\s+use\s+([^;]+);", root_text):
        for p in expand(m.group(1).strip()):
            if p and p[0] in modules:
                reexport[p[-1]] = p[0]
    edges = {m: set() for m in modules}
    for mod in modules:
        files = []
        if (src / f"{mod}.rs").exists():
            files.append(src / f"{mod}.rs")
        if (src / mod).is_dir():
            files.extend(sorted((src / mod).rglob("*.rs")))
        for f in files:
            if is_test(f, src):
                continue
            text = production(strip_comments(f.read_text()))
            for p in use_paths(text):
                target = p[0] if p[0] in modules else reexport.get(p[0])
                if target and target != mod:
                    edges[mod].add(target)
            # `super::…` chains, resolved from the file's place in the
            # module tree: one that climbs to the crate root names a
            # top-level module or an item the root re-exports.
            here = module_path(f, src)
            for m in re.finditer(r"(?<![:\w])((?:super::)+)(" + IDENT + ")", text):
                ups = m.group(1).count("super::")
                if ups < len(here):
                    continue  # still inside this top-level module
                name = m.group(2)
                target = name if name in modules else reexport.get(name)
                if target and target != mod:
                    edges[mod].add(target)
    sccs = tarjan(edges)
    cycles = sorted((sorted(c) for c in sccs if len(c) > 1), key=len, reverse=True)
    imports = sum(len(v) for v in edges.values())
    print(f"{src}: {len(modules)} modules, {imports} module-to-module imports, "
          f"{len(cycles)} cycle(s)" + (f" of {', '.join(str(len(c)) for c in cycles)} modules" if cycles else ""))
    for c in cycles:
        print("  cycle: " + " ".join(c))
    worst = max((len(c) for c in cycles), default=0)
    return 1 if worst > limit else 0


def module_path(f: Path, src: Path):
    """The module path of file `f`: `a.rs` → [a], `x/mod.rs` → [x],
    `x/y.rs` → [x, y]."""
    parts = list(f.relative_to(src).with_suffix("").parts)
    if parts[-1] == "mod":
        parts.pop()
    return parts


def tarjan(edges):
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]
    sys.setrecursionlimit(10000)

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges[v]):
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

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


if __name__ == "__main__":
    sys.exit(main())

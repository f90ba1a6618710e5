#!/usr/bin/env python3
"""A retrieval corpus no one here wrote: the system's manual pages.

Each page of sections 1, 5, 7 and 8 is rendered to text (`man -l` without
hyphenation or justification, 80 columns, `col -b`);
its NAME section's one-line description ("list directory contents" for
ls) is taken OUT of the text and kept as the query that should find the
page. Pages are picked by a hash of their name (the same pages on the same
machine every time), and each query falls in the development half or the
held-out half by another hash of its name: the code is never tuned on the
held-out half, and BENCHMARKS.md reports it last. Pages whose description
also appears verbatim in their text are left out (a lookup, not a search),
as are the Google Cloud SDK's 16,000 generated `gcloud` pages where that
SDK is installed (one template 16,000 times would be most of the corpus).

Usage: corpus.py --out DIR [--pages 2000]
Writes DIR/pages/NAME.txt and DIR/queries.json.
"""

import argparse
import hashlib
import json
import os
import re
import subprocess
import sys

SECTIONS = ["/usr/share/man/man1", "/usr/share/man/man5", "/usr/share/man/man7", "/usr/share/man/man8"]


def render(path):
    env = dict(os.environ, MANWIDTH="80", MAN_KEEP_FORMATTING="0", LC_ALL="C.UTF-8")
    try:
        out = subprocess.run(["man", "--nh", "--nj", "-l", path], capture_output=True, env=env, timeout=30)
        text = subprocess.run(["col", "-bx"], input=out.stdout, capture_output=True, timeout=30).stdout
    except subprocess.TimeoutExpired:
        return None
    return text.decode("utf-8", "replace")


def split_name(text):
    """(description, text without the NAME section) or None."""
    lines = text.splitlines()
    try:
        start = next(i for i, l in enumerate(lines) if l.strip() == "NAME")
    except StopIteration:
        return None
    end = next((i for i in range(start + 1, len(lines)) if lines[i] and not lines[i][0].isspace()), len(lines))
    name = " ".join(l.strip() for l in lines[start + 1:end])
    m = re.split(r"\s+(?:-|\\-|—|–)\s+", name, maxsplit=1)
    if len(m) != 2:
        return None
    desc = m[1].strip().rstrip(".")
    if len(desc.split()) < 3:
        return None
    rest = "\n".join(lines[:start] + lines[end:])
    # The description must not survive elsewhere verbatim (some pages
    # repeat it in DESCRIPTION): such a query would be a lookup, not a
    # search.
    if desc.lower() in re.sub(r"\s+", " ", rest.lower()):
        return None
    return desc, rest


def h(s, salt):
    return hashlib.sha256((salt + s).encode()).hexdigest()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--pages", type=int, default=2000)
    a = ap.parse_args()
    names = sorted(
        os.path.join(d, f) for d in SECTIONS if os.path.isdir(d) for f in os.listdir(d)
        if os.path.isfile(os.path.join(d, f)) and not os.path.islink(os.path.join(d, f))
        and not f.startswith("gcloud")
    )
    names.sort(key=lambda p: h(os.path.basename(p), "pick"))
    pages = os.path.join(a.out, "pages")
    os.makedirs(pages, exist_ok=True)
    queries, seen_desc = [], set()
    for path in names:
        if len(queries) >= a.pages:
            break
        f = os.path.basename(path)
        text = render(path)
        if not text:
            continue
        got = split_name(text)
        if not got:
            continue
        desc, rest = got
        if desc.lower() in seen_desc:
            continue
        seen_desc.add(desc.lower())
        base = re.sub(r"\.gz$", "", f)
        out = base + ".txt"
        with open(os.path.join(pages, out), "w") as fh:
            fh.write(rest)
        half = "heldout" if int(h(base, "half"), 16) % 2 else "dev"
        queries.append({"name": base, "query": desc, "file": out, "half": half})
    with open(os.path.join(a.out, "queries.json"), "w") as fh:
        json.dump(queries, fh, indent=1)
    print(f"{len(queries)} pages, {sum(q['half'] == 'dev' for q in queries)} dev queries, "
          f"{sum(q['half'] == 'heldout' for q in queries)} held-out", file=sys.stderr)


if __name__ == "__main__":
    main()

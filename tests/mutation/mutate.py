#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Mutation run (make mutation): each mutation of tests/mutation/mutations.txt
is applied, one at a time, to a scratch copy of the tree (never to the tree
itself), the tests it names are rebuilt and run there, and the mutation is
CAUGHT when one of them fails, MISSED when all pass. A mutation whose snippet
is not found exactly once in its file is an ERROR (a stale spec), as is one
whose mutant does not compile. Before any mutation, every named test must
pass on the unmutated copy, or a failure would prove nothing.

The list format is described in docs/TESTING.md.

Usage: mutate.py [--list FILE] [--keep] [--jobs N] [ID ...]
Exit status 0 only when every selected mutation is caught.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

TEST_TIMEOUT_S = 300     # a mutant that hangs a test is caught by the timeout
REPORT = "build/mutation/report.txt"


class Mutation:
    def __init__(self, ident, title, lineno):
        self.ident = ident
        self.title = title
        self.lineno = lineno
        self.file = None
        self.tests = []          # ("unit", name) or ("sh", path)
        self.find = None
        self.replace = None


def parse(path):
    """Blocks: '## id: title', 'file: F', 'test: unit NAME | sh PATH' (one or
    more), then '<<<' find lines '===' replacement lines '>>>'."""
    muts, cur, mode, buf = [], None, None, []
    with open(path, encoding="utf-8") as fh:
        lines = fh.read().split("\n")
    for n, line in enumerate(lines, 1):
        if mode in ("find", "replace"):
            if line == "===" and mode == "find":
                cur.find, buf, mode = "\n".join(buf), [], "replace"
            elif line == ">>>" and mode == "replace":
                cur.replace, buf, mode = "\n".join(buf), [], None
            else:
                buf.append(line)
            continue
        if not line.strip() or line.startswith("# "):
            continue
        m = re.match(r"^## ([A-Za-z0-9_.-]+): (.+)$", line)
        if m:
            cur = Mutation(m.group(1), m.group(2), n)
            muts.append(cur)
        elif cur is None:
            sys.exit("%s:%d: text before the first '## id: title'" % (path, n))
        elif line.startswith("file: "):
            cur.file = line[6:].strip()
        elif line.startswith("test: "):
            kind, _, arg = line[6:].strip().partition(" ")
            if kind not in ("unit", "sh") or not arg:
                sys.exit("%s:%d: test must be 'unit NAME' or 'sh PATH'" % (path, n))
            cur.tests.append((kind, arg.strip()))
        elif line == "<<<":
            mode, buf = "find", []
        else:
            sys.exit("%s:%d: unexpected line: %s" % (path, n, line))
    if mode:
        sys.exit("%s: the last snippet is not closed with >>>" % path)
    seen = set()
    for m in muts:
        if not m.file or not m.tests or m.find is None or m.replace is None:
            sys.exit("%s:%d: %s lacks file, test or a <<< === >>> snippet" %
                     (path, m.lineno, m.ident))
        if m.ident in seen:
            sys.exit("%s:%d: duplicate id %s" % (path, m.lineno, m.ident))
        if m.find == m.replace:
            sys.exit("%s:%d: %s: replacement equals the snippet" % (path, m.lineno, m.ident))
        seen.add(m.ident)
    return muts


def copy_tree(root, dst):
    """Tracked and untracked (not ignored) files with their mtimes, and the
    host build, so that make rebuilds only what a mutation touches."""
    out = subprocess.run(["git", "ls-files", "-z", "--cached", "--others",
                          "--exclude-standard"], cwd=root, check=True,
                         stdout=subprocess.PIPE).stdout
    for rel in out.decode().split("\0"):
        src = os.path.join(root, rel)
        if not rel or not os.path.isfile(src):
            continue
        os.makedirs(os.path.join(dst, os.path.dirname(rel)), exist_ok=True)
        shutil.copy2(src, os.path.join(dst, rel))
    for rel in ("build/host", "build/models", "build/.tools-ok"):
        src = os.path.join(root, rel)
        if os.path.isdir(src):
            shutil.copytree(src, os.path.join(dst, rel), symlinks=True)
        elif os.path.isfile(src):
            shutil.copy2(src, os.path.join(dst, rel))
    # the npm references the shell tests read (scripts/setup-npm.sh), shared
    modules = os.path.join(root, "tests/onnx/node_modules")
    if os.path.isdir(modules):
        os.symlink(modules, os.path.join(dst, "tests/onnx/node_modules"))


def run(cmd, cwd, log, timeout=None):
    """Runs cmd, output appended to log; returns (ok, seconds, why)."""
    t0 = time.time()
    with open(log, "a") as fh:
        fh.write("$ %s\n" % " ".join(cmd))
        fh.flush()
        try:
            rc = subprocess.run(cmd, cwd=cwd, stdout=fh, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, timeout=timeout).returncode
        except subprocess.TimeoutExpired:
            return False, time.time() - t0, "timed out after %d s" % timeout
    return rc == 0, time.time() - t0, "exit status %d" % rc


def targets(tests):
    return ["build/host/tests/" + a for k, a in tests if k == "unit"]


def test_cmd(test):
    kind, arg = test
    return ["build/host/tests/" + arg] if kind == "unit" else ["sh", arg]


def build(scratch, tests, jobs, log):
    tg = targets(tests)
    # The host tool too: the shell tests run it (and the mutant may be in it).
    return run(["make", "-s", "--no-print-directory", "-j%d" % jobs, "host"] + tg,
               scratch, log)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--list", default="tests/mutation/mutations.txt")
    ap.add_argument("--keep", action="store_true", help="keep the scratch copy")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("ids", nargs="*")
    args = ap.parse_args()

    root = subprocess.run(["git", "rev-parse", "--show-toplevel"], check=True,
                          stdout=subprocess.PIPE).stdout.decode().strip()
    muts = parse(os.path.join(root, args.list))
    if args.ids:
        unknown = set(args.ids) - {m.ident for m in muts}
        if unknown:
            sys.exit("mutation: no such id: %s" % " ".join(sorted(unknown)))
        muts = [m for m in muts if m.ident in args.ids]

    start = time.time()
    scratch = tempfile.mkdtemp(prefix="rkbare-mutation-")
    os.makedirs(os.path.join(root, os.path.dirname(REPORT)), exist_ok=True)
    log = os.path.join(root, "build/mutation/log.txt")
    open(log, "w").close()
    lines = []

    def say(text):
        print(text, flush=True)
        lines.append(text)

    try:
        copy_tree(root, scratch)
        say("mutation: %d mutations, scratch copy %s, log %s" %
            (len(muts), scratch, os.path.relpath(log, root)))

        # Baseline: every test named must pass unmutated.
        all_tests = []
        for m in muts:
            for t in m.tests:
                if t not in all_tests:
                    all_tests.append(t)
        ok, secs, why = build(scratch, all_tests, args.jobs, log)
        if not ok:
            say("mutation: ERROR: the unmutated copy does not build (%s); see the log" % why)
            return 2
        broken = set()
        for t in all_tests:
            ok, secs, why = run(test_cmd(t), scratch, log, TEST_TIMEOUT_S)
            if not ok:
                broken.add(t)
                say("mutation: ERROR: baseline %s fails unmutated (%s)" % (" ".join(t), why))
        say("mutation: baseline: %d tests pass unmutated (%.0f s)" %
            (len(all_tests) - len(broken), time.time() - start))

        caught = missed = errors = 0
        for m in muts:
            t0 = time.time()
            path = os.path.join(scratch, m.file)
            tag = "%-24s %s" % (m.ident, m.file)
            if not os.path.isfile(path):
                errors += 1
                say("ERROR   %s: no such file" % tag)
                continue
            with open(path, encoding="utf-8") as fh:
                orig = fh.read()
            hits = orig.count(m.find)
            if hits != 1:
                errors += 1
                say("ERROR   %s: snippet found %d times (stale spec)" % (tag, hits))
                continue
            if any(t in broken for t in m.tests):
                errors += 1
                say("ERROR   %s: a test it names fails unmutated" % tag)
                continue
            with open(log, "a") as fh:
                fh.write("\n==== %s (%s)\n" % (m.ident, m.file))
            try:
                with open(path, "w", encoding="utf-8") as fh:
                    fh.write(orig.replace(m.find, m.replace))
                ok, secs, why = build(scratch, m.tests, args.jobs, log)
                if not ok:
                    errors += 1
                    say("ERROR   %s: the mutant does not build (%s)" % (tag, why))
                    continue
                by = None
                for t in m.tests:
                    ok, secs, why = run(test_cmd(t), scratch, log, TEST_TIMEOUT_S)
                    if not ok:
                        by = "%s (%s)" % (t[1], why)
                        break
                if by:
                    caught += 1
                    say("CAUGHT  %s  by %s  %.0f s" % (tag, by, time.time() - t0))
                else:
                    missed += 1
                    say("MISSED  %s  (%s)  %.0f s" % (tag, m.title, time.time() - t0))
            finally:
                with open(path, "w", encoding="utf-8") as fh:
                    fh.write(orig)
                # newer than the mutant's objects: make rebuilds them
                now = time.time()
                os.utime(path, (now, now))
        say("mutation: %d mutations: %d caught, %d missed, %d errors; wall time %.0f s" %
            (len(muts), caught, missed, errors, time.time() - start))
        return 0 if caught == len(muts) else 1
    finally:
        with open(os.path.join(root, REPORT), "w") as fh:
            fh.write("\n".join(lines) + "\n")
        if args.keep:
            print("mutation: scratch copy kept in %s" % scratch)
        else:
            shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())

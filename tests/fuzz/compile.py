#!/usr/bin/python3
"""compile.py BCASTGEN DIR...: the pipeline harness's second stage.

Each file of each DIR is an input of tests/fuzz/fuzz_pipeline.c: words,
one a line, then after a NUL byte a spec written as in.lua. Run BCASTGEN
on it as the harness does (in a scratch directory holding
tests/fuzz/files), again with -o fz.c if it wrote nothing, and
compile every .c it writes with gcc and clang,
-Werror, the flags of the golden tests: an accepted input whose kernel
does not compile, or takes more than SLOW seconds, is a bug. Prints one
line per finding and exits 1 if there is any. BC_COMPILE_SAMPLE=N
compiles N accepted inputs at most (a random sample; 0 for all).
"""
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
FLAGS = ["-std=c99", "-Wall", "-Wextra", "-Wpedantic", "-Wconversion", "-Werror",
         "-O2", "-c", "-I", os.path.join(ROOT, "runtime")]
SLOW = 10


def words_of(data):
    """The argv of an input and its spec, or None if the harness refuses it."""
    nul = data.find(b"\0")
    text, spec = (data, None) if nul < 0 else (data[:nul], data[nul + 1:])
    words = text.split(b"\n")
    if words and words[-1] == b"":
        words.pop()
    if len(words) > 64 or any(b"/" in w or w == b".." for w in words):
        return None, None
    return words, spec


def main():
    gen = os.path.abspath(sys.argv[1])
    sample = int(os.environ.get("BC_COMPILE_SAMPLE", "300"))
    inputs = []
    for d in sys.argv[2:]:
        if os.path.isdir(d):
            inputs += sorted(os.path.join(d, f) for f in os.listdir(d))
    compilers = [c for c in ("gcc", "clang") if shutil.which(c)]
    accepted = findings = 0
    random.seed(0)
    random.shuffle(inputs)
    for path in inputs:
        if sample and accepted >= sample:
            break
        try:
            with open(path, "rb") as f:
                words, spec = words_of(f.read())
        except FileNotFoundError:
            continue    # reduced away by a fuzzer running meanwhile
        if words is None:
            continue
        with tempfile.TemporaryDirectory(prefix="bcastgen-compile.") as tmp:
            files = os.path.join(HERE, "files")
            for f in os.listdir(files):
                shutil.copy(os.path.join(files, f), tmp)
            if spec is not None:
                with open(os.path.join(tmp, "in.lua"), "wb") as f:
                    f.write(spec)
            before = set(os.listdir(tmp))
            # An input that writes nothing may still describe a kernel: ask for it.
            for extra in ([], [b"-o", b"fz.c"]):
                try:
                    rc = subprocess.run([gen] + words + extra, cwd=tmp,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                        timeout=60).returncode
                except subprocess.TimeoutExpired:
                    print("%s: bcastgen runs more than 60 s" % path)
                    findings += 1
                    rc = -1
                outputs = [f for f in sorted(set(os.listdir(tmp)) - before) if f.endswith(".c")]
                if outputs or rc != 0:
                    break
            if rc != 0 or not outputs:
                continue
            accepted += 1
            for out in outputs:
                for cc in compilers:
                    start = time.time()
                    try:
                        p = subprocess.run([cc] + FLAGS + [out, "-o", "/dev/null"], cwd=tmp,
                                           capture_output=True, text=True, timeout=120)
                        err = p.stderr if p.returncode else ""
                    except subprocess.TimeoutExpired:
                        err = "takes more than 120 s"
                    took = time.time() - start
                    if not err and took > SLOW:
                        err = "takes %.0f s" % took
                    if err:
                        findings += 1
                        print("%s: %s %s: %s" % (path, cc, out, err.strip().splitlines()[0]))
    print("compile.py: %d accepted inputs compiled with %s, %d findings"
          % (accepted, " and ".join(compilers), findings))
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())

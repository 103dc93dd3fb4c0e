#!/usr/bin/python3
"""t630-quant-lines: runtime/bc_quant.h's line helpers give, element for
element, what its element steps give, in Helium's lanes and without.

tests/firmware/quant_lines.c runs each line helper (add, subtract,
multiply; i8 over every pair of values, i16 over a spread; each input
moving or staying put; multipliers below 1, of 1 and more, the edges of
the shifts) and compares each element with the element steps. Built for
each target of tests/firmware/targets.py in each of its builds (on the
Cortex-M55 gcc at -Os, -O2 and -O3 and clang at -O2: the Helium lanes,
BC_Q_MVE; elsewhere the scalar loop) and once more on the M55 with
-DBC_Q_NO_MVE, run under QEMU; not on the Cortex-M0, whose RAM is too
small for the data (the test says so). The element steps themselves are checked
against TFLite Micro's math by t710 (on the host).
"""
import os
import shutil
import sys
import tempfile

TESTS = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [TESTS, os.path.join(TESTS, "firmware")]

import targets                         # noqa: E402
from tap import Tap                    # noqa: E402

RUNTIME = os.path.join(os.path.dirname(TESTS), "runtime")
SRC = os.path.join(TESTS, "firmware", "quant_lines.c")
WARN = ["-Wall", "-Wextra", "-Werror", "-ffreestanding", "-I", RUNTIME]
TAP = Tap()


def main():
    work = tempfile.mkdtemp(prefix="bcastgen-t630.")
    try:
        for target in targets.TARGETS:
            builds = list(target.builds)
            if target.name == "m55":
                builds.append(("c99 -O2 -DBC_Q_NO_MVE", "gcc", ["-std=c99", "-O2",
                                                                "-DBC_Q_NO_MVE"]))
            for name, compiler, flags in builds:
                what = "%s %s: the line helpers give the element steps' results" % (
                    target.name, name)
                why = targets.missing(target) or (
                    "its 16 KiB of RAM do not hold the program's 320 KiB of data; its "
                    "scalar lines are the C that runs on the other cores"
                    if target.name == "m0" else None)
                if why:
                    TAP.skip(what, why)
                    continue
                lanes = ("Helium" if target.name == "m55" and "-DBC_Q_NO_MVE" not in flags
                         else "scalar")
                elf = os.path.join(work, "%s-%s.elf" % (
                    target.name, "".join(c if c.isalnum() else "_" for c in name)))
                good, msg = targets.build(target, elf, [SRC], flags + WARN, work,
                                          compiler=compiler)
                if not good:
                    TAP.ok(False, what, ["build failed:"] + msg.splitlines()[-20:])
                    continue
                status, out, err = targets.run(target, elf, timeout=600)
                good = status == 0 and ("lanes: %s" % lanes) in out
                TAP.ok(good, what + " (%s lanes)" % lanes,
                       ["exit status %d" % status] + out.splitlines()[-12:]
                       + err.splitlines()[-5:])
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return TAP.done()


if __name__ == "__main__":
    sys.exit(main())

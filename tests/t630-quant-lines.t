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
small for the data (the test says so). On the host, with gcc and clang:
AVX-512 (where this processor runs it), AVX2, AVX2 found at run time
(-O2 without -march) and its fallback, the scalar loop (-DBC_Q_NO_SIMD)
and UBSan, each build's lanes checked. The element steps themselves are checked
against TFLite Micro's math by t710 (on the host).
"""
import os
import shutil
import subprocess
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


# Host builds: name, compiler, flags, the lanes they must run in, and
# the processor flag the run needs (/proc/cpuinfo), or None.
HOST_BUILDS = [
    ("gcc -O2 -march=x86-64-v4", "gcc", ["-O2", "-march=x86-64-v4"], "AVX-512", "avx512dq"),
    ("gcc -O3 -march=x86-64-v3", "gcc", ["-O3", "-march=x86-64-v3"], "AVX2", "avx2"),
    ("clang -O2 -march=x86-64-v3", "clang", ["-O2", "-march=x86-64-v3"], "AVX2", "avx2"),
    ("clang -O2 -march=x86-64-v4", "clang", ["-O2", "-march=x86-64-v4"], "AVX-512", "avx512dq"),
    ("gcc -O2", "gcc", ["-O2"], "AVX2 at run time", "avx2"),
    ("clang -O2", "clang", ["-O2"], "AVX2 at run time", "avx2"),
    ("gcc -O2, the processor's AVX2 not asked", "gcc", ["-O2", "-DBC__Q_NO_CPU_AVX2"],
     "scalar", None),
    ("gcc -O2 -march=x86-64-v3 -DBC_Q_NO_SIMD", "gcc",
     ["-O2", "-march=x86-64-v3", "-DBC_Q_NO_SIMD"], "scalar", None),
    ("gcc -O1 -march=x86-64-v4 UBSan", "gcc", ["-O1", "-march=x86-64-v4",
     "-fsanitize=undefined", "-fno-sanitize-recover=all"], "AVX-512", "avx512dq"),
]


def host(work):
    """Runs the program on the host in each of HOST_BUILDS."""
    flags_of_cpu = ""
    try:
        with open("/proc/cpuinfo") as f:
            flags_of_cpu = " ".join(l for l in f if l.startswith("flags"))
    except OSError:
        pass
    machine = os.uname().machine
    for name, cc, flags, lanes, needs in HOST_BUILDS:
        what = "host %s: the line helpers give the element steps' results" % name
        if machine != "x86_64":
            TAP.skip(what, "the host is %s, not x86-64" % machine)
            continue
        if not shutil.which(cc):
            TAP.skip(what, "no %s" % cc)
            continue
        if needs and (" %s " % needs) not in flags_of_cpu + " ":
            TAP.skip(what, "this processor lacks %s" % needs)
            continue
        exe = os.path.join(work, "host-" + "".join(c if c.isalnum() else "_" for c in name))
        p = subprocess.run([cc, "-std=c99"] + flags + ["-Wall", "-Wextra", "-Werror"] + [
            "-I", RUNTIME, "-I", os.path.join(TESTS, "firmware"), SRC,
            os.path.join(TESTS, "firmware", "fw_host.c"), "-o", exe],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
        if p.returncode != 0:
            TAP.ok(False, what, ["build failed:"] + p.stdout.splitlines()[-20:])
            continue
        r = subprocess.run([exe], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           universal_newlines=True, timeout=600)
        TAP.ok(r.returncode == 0 and ("lanes: %s" % lanes) in r.stdout,
               what + " (%s lanes)" % lanes,
               ["exit status %d" % r.returncode] + r.stdout.splitlines()[-12:])


def main():
    work = tempfile.mkdtemp(prefix="bcastgen-t630.")
    try:
        host(work)
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

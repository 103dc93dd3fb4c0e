"""targets.py: the bare-metal targets, in one table, and how to build and
run a program on each under QEMU (see README.md here).

A program is C with an `int main(void)` that writes through fw.h; it is
linked with the target's start-up code and linker script, -nostdlib and
libgcc only, so anything that needs libc or libm fails to link.

Each target names the compilers it is built with (gcc, whose driver
also links every program, and for some clang) and the builds a test
runs it in (BUILDS: name, compiler, flags).

As a module: TARGETS, missing(), startup(), build(), run(). As a command:
  targets.py list                       the targets and their builds
  targets.py build TARGET OUT.elf [--cc NAME] SRC.c... [-- CFLAGS...]
  targets.py run TARGET ELF             run it; QEMU's status is ours
"""
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


class Compiler:
    """A C compiler for one core: its command, the flags that select the
    core, and the flags that keep it from making calls to memcpy and
    memset out of the start-up code's loops (NOLIB)."""

    def __init__(self, cc, arch, nolib):
        self.cc = cc
        self.arch = arch
        self.nolib = nolib


class Target:
    """One core, its compilers, the builds it is tested in and the QEMU
    machine that runs it.

    compilers: {name: Compiler}; "gcc" is always one, and its driver
    links (with the target's libgcc) whatever compiled the objects.
    cc, arch: gcc's. builds: [(name, compiler, flags)], the -std and -O
    of each build a test runs (tests add their warnings).
    hw_float: the float dtypes the core computes in hardware (the others
    go through libgcc's soft-float helpers)."""

    def __init__(self, name, title, compilers, builds, start, ldscript, qemu,
                 family, hw_float):
        self.name = name
        self.title = title
        self.compilers = compilers
        self.cc = compilers["gcc"].cc
        self.arch = compilers["gcc"].arch
        self.builds = builds
        self.start = start
        self.ldscript = ldscript
        self.qemu = qemu
        self.family = family
        self.hw_float = hw_float


# Semihosting output goes to a chardev on QEMU's stdout (without one it
# goes to stderr); the serial port and the monitor are off.
QEMU_COMMON = ["-nographic", "-monitor", "none", "-serial", "none",
               "-chardev", "stdio,id=fwout",
               "-semihosting-config", "enable=on,target=native,chardev=fwout"]

# gcc's flags against calls to memcpy and memset made of loops; clang
# makes none under -fno-builtin.
GCC_NOLIB = ["-fno-builtin", "-fno-tree-loop-distribute-patterns"]
CLANG_NOLIB = ["-fno-builtin"]


def gcc(cc, arch):
    """gcc for a core: {"gcc": Compiler}."""
    return {"gcc": Compiler(cc, arch, GCC_NOLIB)}


# The builds of every target: strict C99 at -Os and -O2; with an FPU,
# gcc's GNU mode too, which contracts a*b + c into a fused multiply-add
# unless the file forbids it (soft float has no such instruction).
NOFPU_BUILDS = [("c99 -Os", "gcc", ["-std=c99", "-Os"]),
                ("c99 -O2", "gcc", ["-std=c99", "-O2"])]
BUILDS = NOFPU_BUILDS + [("gnu11 -O2", "gcc", ["-std=gnu11", "-O2"])]
# The Cortex-M55's: gcc at -O3 too, where it vectorizes with Helium
# (it does f32 loops at -O2 already), in the GNU mode; and clang at -O2,
# which vectorizes with tail-predicated loops. clang gets -fshort-enums,
# the enum size of arm-none-eabi-gcc's ABI, which its libgcc is built for.
M55_ARCH = ["-mcpu=cortex-m55", "-mthumb", "-mfloat-abi=hard"]
M55_BUILDS = [("c99 -Os", "gcc", ["-std=c99", "-Os"]),
              ("c99 -O2", "gcc", ["-std=c99", "-O2"]),
              ("gnu11 -O3", "gcc", ["-std=gnu11", "-O3"]),
              ("clang c99 -O2", "clang", ["-std=c99", "-O2"])]

# The Cortex-M4F's gcc gets IEEE __fp16, with which bc.h converts f16
# by the FPU's VCVTB (the M55's gcc has it by default, clang always).
TARGETS = [
    Target("m4f", "Cortex-M4F on mps2-an386",
           gcc("arm-none-eabi-gcc",
               ["-mcpu=cortex-m4", "-mthumb", "-mfpu=fpv4-sp-d16", "-mfloat-abi=hard",
                "-mfp16-format=ieee"]),
           BUILDS, ["arm.c", "fw.c"], "an386.ld",
           ["qemu-system-arm", "-M", "mps2-an386"], "arm", {"f32"}),
    Target("m0", "Cortex-M0 on microbit (16 KiB of RAM)",
           gcc("arm-none-eabi-gcc", ["-mcpu=cortex-m0", "-mthumb"]),
           NOFPU_BUILDS, ["arm.c", "fw.c"], "microbit.ld",
           ["qemu-system-arm", "-M", "microbit"], "arm", set()),
    Target("rv32imac", "RV32IMAC on virt",
           gcc("riscv64-unknown-elf-gcc", ["-march=rv32imac", "-mabi=ilp32"]),
           NOFPU_BUILDS, ["riscv.S", "fw.c"], "virt.ld",
           ["qemu-system-riscv32", "-M", "virt", "-cpu", "rv32,f=false,d=false",
            "-bios", "none"], "riscv", set()),
    Target("rv32imafc", "RV32IMAFC on virt",
           gcc("riscv64-unknown-elf-gcc", ["-march=rv32imafc", "-mabi=ilp32f"]),
           BUILDS, ["riscv.S", "fw.c"], "virt.ld",
           ["qemu-system-riscv32", "-M", "virt", "-cpu", "rv32", "-bios", "none"],
           "riscv", {"f32"}),
    Target("m55", "Cortex-M55 with Helium (MVE) on mps3-an547",
           {"gcc": Compiler("arm-none-eabi-gcc", M55_ARCH, GCC_NOLIB),
            "clang": Compiler("clang", ["--target=thumbv8.1m.main-none-eabihf",
                                        "-mcpu=cortex-m55", "-mfloat-abi=hard",
                                        "-fshort-enums"],
                              CLANG_NOLIB)},
           M55_BUILDS, ["arm.c", "fw.c"], "an547.ld",
           ["qemu-system-arm", "-M", "mps3-an547"], "arm", {"f32", "f64"}),
]
BY_NAME = {t.name: t for t in TARGETS}

# The start-up code's own flags, and the compiler's NOLIB: no
# memcpy/memset made out of its loops. It is built with the program's
# compiler at the program's -O (-Os if none), so that a build at -O3
# runs start-up code whose loops gcc made vector code.
STARTUP_CFLAGS = ["-std=c99", "-ffreestanding", "-Wall", "-Wextra", "-Werror"]

# Exit status of a run that QEMU's timeout ended.
TIMEOUT_STATUS = 124

# What missing() found out, by question: a tool's answer is the same
# for the whole run.
_probed = {}


def _probe(key, cmd, stdin=""):
    """Whether CMD exits 0 with STDIN as input (asked once per KEY)."""
    if key not in _probed:
        try:
            p = subprocess.run(cmd, input=stdin, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, universal_newlines=True)
            _probed[key] = (p.returncode == 0, p.stdout)
        except OSError as e:
            _probed[key] = (False, str(e))
    return _probed[key]


def missing(target, compiler="gcc"):
    """Why TARGET cannot be built with COMPILER (a key of its compilers)
    or run here, or None: a tool not found, a compiler that does not know
    the core, a QEMU without the machine."""
    cc = target.compilers[compiler]
    for tool in (target.cc, cc.cc, target.qemu[0]):
        if shutil.which(tool) is None:
            return "%s not found" % tool
    for c in (target.compilers["gcc"], cc):
        good, _ = _probe(("cc", c.cc) + tuple(c.arch),
                         [c.cc] + c.arch + ["-x", "c", "-c", "-o", os.devnull, "-"],
                         "int fw_probe;\n")
        if not good:
            return "%s does not build for %s (%s)" % (c.cc, target.title, " ".join(c.arch))
    machine = target.qemu[target.qemu.index("-M") + 1]
    good, out = _probe(("qemu",) + tuple(target.qemu[:1]), [target.qemu[0], "-M", "help"])
    if not good or machine not in out.split():
        return "%s has no machine %s" % (target.qemu[0], machine)
    return None


def library_headers(target):
    """The directories of the C library's headers (newlib's) where the
    target's gcc finds them, for another compiler: gcc's own headers
    (stdint.h and the like, each compiler has its own) left out."""
    key = ("headers", target.cc) + tuple(target.arch)
    good, out = _probe(key, [target.cc] + target.arch + ["-x", "c", "-E", "-v", os.devnull])
    if not good:
        return []
    good, own = _probe(("own", target.cc), [target.cc, "-print-file-name=include"])
    own = os.path.dirname(os.path.realpath(own.strip())) if good else None
    dirs, inside = [], False
    for line in out.splitlines():
        if line.startswith("#include <...>"):
            inside = True
        elif line.startswith("End of search list"):
            break
        elif inside and line.startswith(" "):
            d = os.path.realpath(line.strip())
            if own is None or not d.startswith(own + os.sep):
                dirs.append(d)
    return dirs


def compile_c(target, src, obj, cflags, compiler="gcc"):
    """Compiles SRC (C or preprocessed assembly) to OBJ for TARGET with
    COMPILER (gcc's C library headers after its own for another); returns
    (ok, the compiler's messages)."""
    cc = target.compilers[compiler]
    extra = []
    if compiler != "gcc":
        for d in library_headers(target):
            extra += ["-idirafter", d]
    cmd = [cc.cc] + cc.arch + list(cflags) + extra + ["-I", HERE, "-c", "-o", obj, src]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True)
    return p.returncode == 0, " ".join(cmd) + "\n" + p.stdout


def opt_level(cflags):
    """The last -O flag of CFLAGS, or -Os."""
    levels = [f for f in cflags if f.startswith("-O")]
    return levels[-1] if levels else "-Os"


def startup(target, outdir, compiler="gcc", level="-Os"):
    """Builds TARGET's start-up objects with COMPILER at LEVEL into OUTDIR
    (once); returns their paths. Raises RuntimeError with the compiler's
    messages."""
    objs = []
    for src in target.start:
        obj = os.path.join(outdir, "fw-%s-%s%s-%s.o" % (target.name, compiler, level,
                                                          src.replace(".", "_")))
        if not os.path.exists(obj):
            flags = STARTUP_CFLAGS + [level] + target.compilers[compiler].nolib
            good, msg = compile_c(target, os.path.join(HERE, src), obj, flags, compiler)
            if not good:
                raise RuntimeError(msg)
        objs.append(obj)
    return objs


def link(target, objs, elf, libs=()):
    """Links OBJS with gcc's driver, -nostdlib, the target's linker script
    and libgcc only, or LIBS before it (["-lm", "-lc"]: newlib's); returns
    (ok, messages)."""
    cmd = ([target.cc] + target.arch +
           ["-nostdlib", "-nostartfiles", "-L", HERE,
            "-T", os.path.join(HERE, target.ldscript), "-o", elf] +
           list(objs) + list(libs) + ["-lgcc"])
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True)
    return p.returncode == 0, " ".join(cmd) + "\n" + p.stdout


def build(target, elf, sources, cflags, outdir, libs=(), compiler="gcc"):
    """Compiles SOURCES with COMPILER and CFLAGS (an object among them is
    linked as it is) and links them into ELF with the start-up code (built
    alike, see startup) and LIBS (see link); returns (ok, messages)."""
    objs = startup(target, outdir, compiler, opt_level(cflags))
    for src in sources:
        if src.endswith(".o"):
            objs.append(src)
            continue
        obj = os.path.join(outdir, os.path.basename(elf) + "-" +
                           os.path.basename(src) + ".o")
        good, msg = compile_c(target, src, obj, cflags, compiler)
        if not good:
            return False, msg
        objs.append(obj)
    return link(target, objs, elf, libs)


def qemu_command(target, elf):
    """The QEMU command line that runs ELF on TARGET."""
    return target.qemu + QEMU_COMMON + ["-kernel", elf]


def run(target, elf, timeout=60):
    """Runs ELF under QEMU, at most TIMEOUT seconds; returns (status,
    stdout, stderr). A run past the timeout is killed: TIMEOUT_STATUS."""
    cmd = ["timeout", "-k", "5", str(timeout)] + qemu_command(target, elf)
    p = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    return (p.returncode, p.stdout.decode("utf-8", "replace"),
            p.stderr.decode("utf-8", "replace"))


def main(argv):
    """The command-line interface of the module docstring; build takes
    --cc NAME (a compiler of the target) before its sources."""
    if len(argv) >= 2 and argv[1] == "list":
        for t in TARGETS:
            print("%-10s %s: %s %s" % (t.name, t.title, t.cc, " ".join(t.arch)))
            for name, cc, flags in t.builds:
                c = t.compilers[cc]
                print("%-10s   %s: %s %s %s" % ("", name, c.cc, " ".join(c.arch),
                                                 " ".join(flags)))
        return 0
    if len(argv) >= 5 and argv[1] == "build" and argv[2] in BY_NAME:
        target = BY_NAME[argv[2]]
        rest = argv[4:]
        compiler = "gcc"
        if len(rest) >= 2 and rest[0] == "--cc" and rest[1] in target.compilers:
            compiler = rest[1]
            rest = rest[2:]
        cflags = []
        if "--" in rest:
            cflags = rest[rest.index("--") + 1:]
            rest = rest[:rest.index("--")]
        elf = os.path.abspath(argv[3])
        good, msg = build(target, elf, rest, cflags, os.path.dirname(elf),
                          compiler=compiler)
        if not good:
            sys.stderr.write(msg)
        return 0 if good else 1
    if len(argv) == 4 and argv[1] == "run" and argv[2] in BY_NAME:
        status, out, err = run(BY_NAME[argv[2]], argv[3])
        sys.stdout.write(out)
        sys.stderr.write(err)
        return status
    sys.stderr.write("usage: targets.py list | build TARGET OUT.elf [--cc NAME] SRC... "
                     "[-- CFLAGS...] | run TARGET ELF\n(targets: %s)\n" % " ".join(BY_NAME))
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))

"""targets.py: the bare-metal targets, in one table, and how to build and
run a program on each under QEMU (see README.md here).

A program is C with an `int main(void)` that writes through fw.h; it is
linked with the target's start-up code and linker script, -nostdlib and
libgcc only, so anything that needs libc or libm fails to link.

As a module: TARGETS, missing(), startup(), build(), run(). As a command:
  targets.py list                       the targets, one a line
  targets.py build TARGET OUT.elf SRC.c... [-- CFLAGS...]
  targets.py run TARGET ELF             run it; QEMU's status is ours
"""
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


class Target:
    """One core, its compiler flags and the QEMU machine that runs it.

    hw_float: the float dtypes the core computes in hardware (the others
    go through libgcc's soft-float helpers)."""

    def __init__(self, name, title, cc, arch, start, ldscript, qemu, family,
                 hw_float):
        self.name = name
        self.title = title
        self.cc = cc
        self.arch = arch
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

TARGETS = [
    Target("m4f", "Cortex-M4F on mps2-an386", "arm-none-eabi-gcc",
           ["-mcpu=cortex-m4", "-mthumb", "-mfpu=fpv4-sp-d16", "-mfloat-abi=hard"],
           ["arm.c", "fw.c"], "an386.ld",
           ["qemu-system-arm", "-M", "mps2-an386"], "arm", {"f32"}),
    Target("m0", "Cortex-M0 on microbit (16 KiB of RAM)", "arm-none-eabi-gcc",
           ["-mcpu=cortex-m0", "-mthumb"],
           ["arm.c", "fw.c"], "microbit.ld",
           ["qemu-system-arm", "-M", "microbit"], "arm", set()),
    Target("rv32imac", "RV32IMAC on virt", "riscv64-unknown-elf-gcc",
           ["-march=rv32imac", "-mabi=ilp32"],
           ["riscv.S", "fw.c"], "virt.ld",
           ["qemu-system-riscv32", "-M", "virt", "-cpu", "rv32,f=false,d=false",
            "-bios", "none"], "riscv", set()),
    Target("rv32imafc", "RV32IMAFC on virt", "riscv64-unknown-elf-gcc",
           ["-march=rv32imafc", "-mabi=ilp32f"],
           ["riscv.S", "fw.c"], "virt.ld",
           ["qemu-system-riscv32", "-M", "virt", "-cpu", "rv32", "-bios", "none"],
           "riscv", {"f32"}),
]
BY_NAME = {t.name: t for t in TARGETS}

# The start-up code's own flags: whatever the program is built with, it
# is built the same way. No memcpy/memset made out of its loops.
STARTUP_CFLAGS = ["-std=c99", "-Os", "-ffreestanding", "-fno-builtin",
                  "-fno-tree-loop-distribute-patterns", "-Wall", "-Wextra",
                  "-Werror"]

# Exit status of a run that QEMU's timeout ended.
TIMEOUT_STATUS = 124


def missing(target):
    """Why TARGET cannot be built or run here, or None."""
    for tool in (target.cc, target.qemu[0]):
        if shutil.which(tool) is None:
            return "%s not found" % tool
    return None


def compile_c(target, src, obj, cflags):
    """Compiles SRC (C or preprocessed assembly) to OBJ for TARGET; returns
    (ok, the compiler's messages)."""
    cmd = [target.cc] + target.arch + list(cflags) + ["-I", HERE, "-c", "-o", obj, src]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True)
    return p.returncode == 0, " ".join(cmd) + "\n" + p.stdout


def startup(target, outdir):
    """Builds TARGET's start-up objects into OUTDIR (once); returns their
    paths. Raises RuntimeError with the compiler's messages."""
    objs = []
    for src in target.start:
        obj = os.path.join(outdir, "fw-%s-%s.o" % (target.name, src.replace(".", "_")))
        if not os.path.exists(obj):
            good, msg = compile_c(target, os.path.join(HERE, src), obj, STARTUP_CFLAGS)
            if not good:
                raise RuntimeError(msg)
        objs.append(obj)
    return objs


def link(target, objs, elf, libs=()):
    """Links OBJS with -nostdlib, the target's linker script and libgcc
    only, or LIBS before it (["-lm", "-lc"]: newlib's); returns (ok,
    messages)."""
    cmd = ([target.cc] + target.arch +
           ["-nostdlib", "-nostartfiles", "-L", HERE,
            "-T", os.path.join(HERE, target.ldscript), "-o", elf] +
           list(objs) + list(libs) + ["-lgcc"])
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True)
    return p.returncode == 0, " ".join(cmd) + "\n" + p.stdout


def build(target, elf, sources, cflags, outdir, libs=()):
    """Compiles SOURCES with CFLAGS and links them into ELF with the
    start-up code (and LIBS, see link); returns (ok, messages)."""
    objs = startup(target, outdir)
    for src in sources:
        obj = os.path.join(outdir, os.path.basename(elf) + "-" +
                           os.path.basename(src) + ".o")
        good, msg = compile_c(target, src, obj, cflags)
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
    """The command-line interface of the module docstring."""
    if len(argv) >= 2 and argv[1] == "list":
        for t in TARGETS:
            print("%-10s %s: %s %s" % (t.name, t.title, t.cc, " ".join(t.arch)))
        return 0
    if len(argv) >= 5 and argv[1] == "build" and argv[2] in BY_NAME:
        rest = argv[4:]
        cflags = []
        if "--" in rest:
            cflags = rest[rest.index("--") + 1:]
            rest = rest[:rest.index("--")]
        elf = os.path.abspath(argv[3])
        good, msg = build(BY_NAME[argv[2]], elf, rest, cflags, os.path.dirname(elf))
        if not good:
            sys.stderr.write(msg)
        return 0 if good else 1
    if len(argv) == 4 and argv[1] == "run" and argv[2] in BY_NAME:
        status, out, err = run(BY_NAME[argv[2]], argv[3])
        sys.stdout.write(out)
        sys.stderr.write(err)
        return status
    sys.stderr.write("usage: targets.py list | build TARGET OUT.elf SRC... [-- CFLAGS...]"
                     " | run TARGET ELF\n(targets: %s)\n" % " ".join(BY_NAME))
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))

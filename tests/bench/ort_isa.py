# SPDX-License-Identifier: MIT
"""onnxruntime on its AVX2 kernels on a CPU that has AVX-512: make bench's
reference for the AVX2 paths (BENCHMARKS section 6).

onnxruntime (MLAS, platform.cpp) picks its int8 kernels from CPUID once,
with no option or environment variable to cap the instruction set, so a
machine with AVX-512 VNNI never runs the AVX2 kernel an AVX2-only CPU
runs. This gdb script runs a program under gdb with a breakpoint on every
cpuid instruction of libonnxruntime.so and clears, in the results of leaf
7, the AVX-512 feature bits and the VNNI extensions (AVX-512 and VEX):
onnxruntime then sees an AVX2 CPU and takes the same kernels it takes on
one. The breakpoints fire only while it probes the CPU; the inference
itself runs natively, timed as usual. Other libraries (node, V8) see the
real CPU.

usage: gdb -q -batch -x tests/bench/ort_isa.py --args node tests/onnx/ort_time.js ...
Exits with the program's status, or 3 if no leaf-7 result was masked (the
library was not loaded or did not ask: the timing would not be AVX2's).
"""
import re
import subprocess

import gdb

LIB = "libonnxruntime.so"


def bits(*ns):
    return sum(1 << n for n in ns)


# (leaf 7 subleaf, register) -> bits cleared (Intel SDM vol. 2, CPUID).
MASK = {
    # EBX: AVX512F 16, DQ 17, IFMA 21, PF 26, ER 27, CD 28, BW 30, VL 31
    (0, "ebx"): bits(16, 17, 21, 26, 27, 28, 30, 31),
    # ECX: VBMI 1, VBMI2 6, VNNI 11, BITALG 12, VPOPCNTDQ 14
    (0, "ecx"): bits(1, 6, 11, 12, 14),
    # EDX: 4VNNIW 2, 4FMAPS 3, VP2INTERSECT 8, AMX-BF16 22, FP16 23,
    # AMX-TILE 24, AMX-INT8 25
    (0, "edx"): bits(2, 3, 8, 22, 23, 24, 25),
    # EAX: AVX-VNNI 4, AVX512-BF16 5
    (1, "eax"): bits(4, 5),
    # EDX: AVX-VNNI-INT8 4, AVX-NE-CONVERT 5, AVX-VNNI-INT16 10
    (1, "edx"): bits(4, 5, 10),
}

leaf_in = {}	# thread -> (eax, ecx) as cpuid was entered
masked = [0]


def reg(name):
    return int(gdb.parse_and_eval("$" + name)) & 0xffffffff


class Enter(gdb.Breakpoint):
    """At a cpuid: its leaf and subleaf, before the instruction overwrites them."""

    def stop(self):
        leaf_in[gdb.selected_thread().ptid] = (reg("eax"), reg("ecx"))
        return False


class Leave(gdb.Breakpoint):
    """After the cpuid (two bytes, 0f a2): leaf 7's feature bits cleared."""

    def stop(self):
        leaf, sub = leaf_in.pop(gdb.selected_thread().ptid, (None, None))
        if leaf == 7 and sub in (0, 1):
            for r in ("eax", "ebx", "ecx", "edx"):
                m = MASK.get((sub, r), 0)
                if m:
                    gdb.execute("set $r%sx = %d" % (r[1], reg(r) & ~m), to_string=True)
            masked[0] += 1
        return False


def on_objfile(event):
    if getattr(on_objfile, "done", False) or LIB not in event.new_objfile.filename:
        return
    on_objfile.done = True
    path = event.new_objfile.filename
    base = None
    for line in open("/proc/%d/maps" % gdb.selected_inferior().pid):
        f = line.split()
        if len(f) >= 6 and f[5] == path and int(f[2], 16) == 0:
            base = int(f[0].split("-")[0], 16)	# its first PT_LOAD is at address 0
            break
    dis = subprocess.run(["objdump", "-d", "--no-show-raw-insn", path],
                         capture_output=True, text=True, check=True).stdout
    for m in re.finditer(r"^\s*([0-9a-f]+):\s+cpuid\s*$", dis, re.M):
        at = base + int(m.group(1), 16)
        Enter("*0x%x" % at, internal=True)
        Leave("*0x%x" % (at + 2), internal=True)


gdb.events.new_objfile.connect(on_objfile)
gdb.execute("set pagination off")
gdb.execute("set confirm off")
gdb.execute("handle all nostop noprint pass")
gdb.execute("run")
status = gdb.parse_and_eval("$_exitcode")
code = int(status) if status.type.code != gdb.TYPE_CODE_VOID else 1
if not masked[0]:
    gdb.write("ort_isa.py: no leaf-7 CPUID result of %s was masked\n" % LIB, gdb.STDERR)
    code = 3
gdb.execute("quit %d" % code)

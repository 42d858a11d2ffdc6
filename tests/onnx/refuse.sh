# Sourced by the ONNX op tests (ewise_npu.sh, xformer_npu.sh): refuse MODEL
# WANT...: rkbare compile must refuse $tmp/bad/MODEL.onnx in int8 (calibrated
# on $tmp/bad/MODEL_calib) and in fp16, each message holding every WANT (the
# node, the attribute, what is supported). The caller sets RKBARE, tmp and
# WHO (its name in messages).
refuse() {
	model=$1
	shift
	for prec in int8 fp16; do
		if [ "$prec" = int8 ]; then
			out=$("$RKBARE" compile "$tmp/bad/$model.onnx" --calib "$tmp/bad/${model}_calib" \
				-o "$tmp/bad/$model.rkb" 2>&1) && status=0 || status=$?
		else
			out=$("$RKBARE" compile "$tmp/bad/$model.onnx" --precision fp16 \
				-o "$tmp/bad/$model.rkb" 2>&1) && status=0 || status=$?
		fi
		if [ "$status" -eq 0 ]; then
			echo "$WHO: $model ($prec) compiled; it must be refused"
			exit 1
		fi
		for want in "$@"; do
			case $out in
			*"$want"*) ;;
			*) echo "$WHO: $model ($prec): '$want' missing from: $out"; exit 1 ;;
			esac
		done
	done
}

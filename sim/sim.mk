# sim/: the NPU model. Portable sources go into the image (qemu-virt answers
# NPU traffic with it) and into the host library; sim_host.c is host glue.
SIM_SRCS := sim/soc.c sim/regfile.c sim/pc.c sim/exec.c sim/exec_conv.c \
	sim/exec_dpu.c sim/exec_ppu.c
IMAGE_SRCS += $(SIM_SRCS)
HOST_LIB_SRCS += $(SIM_SRCS) sim/sim_host.c
# The PMU/CRU model goes wherever the NPU model goes.
IMAGE_SRCS += sim/power.c
HOST_LIB_SRCS += sim/power.c

# Benchmark of the model (make bench): built -O2 without sanitizers; uses
# the test-local stream encoder of the model's unit tests.
SIM_BENCH := $(HOST_DIR)/bench/bench_sim
SIM_BENCH_SRCS := tests/bench/bench_sim.c tests/ref/ref_nn.c $(SIM_SRCS) sim/power.c sim/sim_host.c \
	hal/host/hal_host.c drivers/npu/npu_regs.c
$(SIM_BENCH): $(SIM_BENCH_SRCS) $(wildcard sim/*.h) tests/unit/test_sim_util.h
	@mkdir -p $(dir $@)
	$(HOSTCC) -O2 -std=gnu11 $(WARN) $(COMMON_INC) -Ihal/host -Itests \
		-DLOG_LEVEL=1 -DRKBARE_HOST=1 $(SIM_BENCH_SRCS) -lcmocka -lm -o $@
BENCHES += $(SIM_BENCH)
bench: $(SIM_BENCH)

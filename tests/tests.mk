# tests/: host unit tests (cmocka) and QEMU boot tests.
# UNIT_TESTS names tests/unit/<name>.c; QEMU_TESTS lists scripts.
TEST_SUPPORT_OBJS :=
UNIT_TESTS += test_dma_pool
UNIT_TESTS += test_regcmd
UNIT_TESTS += test_regcmd_disasm
UNIT_TESTS += test_sim_power
# CLI tests of `rkbare sim` (shell scripts; each builds what it needs).
CLI_HELPERS := $(HOST_DIR)/cli/mtx_matmul_data
$(HOST_DIR)/cli/%: tests/cli/%.c
	@mkdir -p $(dir $@)
	$(HOSTCC) $(HOST_CFLAGS) $< $(HOST_LDFLAGS) -o $@
cli-helpers: $(CLI_HELPERS)
.PHONY: cli-helpers
QEMU_TESTS += tests/cli/sim_mtx_matmul.sh tests/cli/sim_bad_input.sh
UNIT_TESTS += test_regcmd_matmul

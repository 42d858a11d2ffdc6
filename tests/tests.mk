# tests/: host unit tests (cmocka) and QEMU boot tests.
# UNIT_TESTS names tests/unit/<name>.c; QEMU_TESTS lists scripts.
TEST_SUPPORT_OBJS :=
UNIT_TESTS += test_dma_pool
UNIT_TESTS += test_regcmd
UNIT_TESTS += test_regcmd_disasm
UNIT_TESTS += test_sim_power

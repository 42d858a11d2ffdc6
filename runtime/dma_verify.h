/* SPDX-License-Identifier: MIT */
/*
 * DMA verifier: before a kick, every address a command stream lets the NPU
 * touch must lie, with the extent its sizes and strides imply, inside a
 * buffer the caller owns. Without an IOMMU (HARDWARE.md §3.6) one wrong
 * address in a stream would let the NPU read or overwrite anything below
 * 4 GiB, the image included.
 *
 * The verifier replays a chain's register writes in order (a register a
 * task does not write keeps the value the previous task left, as on the
 * silicon) and checks, per task and per enabled block: the CNA feature read
 * and weights, the DPU write, the DPU_RDMA reads (main input, per-channel BS
 * and BN operands, the EW operand), the PPU_RDMA read and the PPU write, and
 * the next task's fetch. Extents follow the layouts of HARDWARE.md §5 and
 * sim/ASSUMPTIONS.md A9, A16, A19-A21, with signed CNA surface strides; all
 * arithmetic is 64-bit, so no 32-bit wrap can shrink a range.
 */
#ifndef RKBARE_RUNTIME_DMA_VERIFY_H
#define RKBARE_RUNTIME_DMA_VERIFY_H

#include <stddef.h>
#include <stdint.h>

#include "drivers/npu/npu.h"

/* A buffer the caller owns, as the NPU addresses it. */
struct dv_range {
	uint32_t addr;
	uint64_t size;
	const char *name;
};

/* The registers the verifier follows, carried from task to task. */
#define DV_REGS 48
struct dv_state {
	uint32_t v[DV_REGS];
};

/* Registers at their reset value (0) before a chain's first task. */
void dv_state_reset(struct dv_state *s);

/*
 * Check one task: `entries` are the qwords the PC fetches for it (body,
 * tail and any padding; entries after op-enable are ignored), `index` names
 * it in errors. Returns 0, or -EFAULT with a message naming the task, the
 * register and the address in err.
 */
int dv_check_task(struct dv_state *s, const uint64_t *entries, size_t count, uint32_t index,
		  const struct dv_range *owned, size_t n_owned, char *err, size_t err_len);

/*
 * Check a whole job as the driver will submit it: tasks[i] fetches
 * regcfg_amount + 4 qwords at regcmd_addr, which must lie in the stream
 * (stream_cpu holds stream_qwords entries from NPU address stream_addr) and
 * in an owned buffer. Returns 0 or -EFAULT with the message in err.
 */
int dv_check_job(const struct npu_task *tasks, uint32_t task_count, const uint64_t *stream_cpu,
		 uint32_t stream_addr, size_t stream_qwords, const struct dv_range *owned,
		 size_t n_owned, char *err, size_t err_len);

#endif /* RKBARE_RUNTIME_DMA_VERIFY_H */

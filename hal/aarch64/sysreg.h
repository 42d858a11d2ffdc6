/* SPDX-License-Identifier: MIT */
/*
 * aarch64 system-register access and the architectural bit fields the boot
 * code and the aarch64 HAL use. Field positions: Arm ARM (DDI 0487) and
 * docs/HARDWARE.md §B.6.
 */
#ifndef RKBARE_SYSREG_H
#define RKBARE_SYSREG_H

#ifndef __ASSEMBLY__
#include <stdint.h>

#define read_sysreg(reg) ({						\
	uint64_t __val;							\
	__asm__ volatile("mrs %0, " #reg : "=r"(__val));		\
	__val;								\
})

#define write_sysreg(reg, val) \
	__asm__ volatile("msr " #reg ", %x0" : : "rZ"((uint64_t)(val)))

static inline void isb(void)
{
	__asm__ volatile("isb" : : : "memory");
}
#endif

/* CurrentEL[3:2] */
#define CURRENTEL_EL_SHIFT	2

/* CTR_EL0 */
#define CTR_DMINLINE_SHIFT	16
#define CTR_DMINLINE_MASK	0xf
#define CTR_IMINLINE_MASK	0xf

/* ID_AA64PFR0_EL1.GIC [27:24]: non-zero when the GICv3 system registers exist */
#define ID_AA64PFR0_GIC_SHIFT	24
#define ID_AA64PFR0_GIC_MASK	0xf

/* HCR_EL2 */
#define HCR_EL2_RW		(1 << 31)	/* EL1 is AArch64 */

/* CNTHCTL_EL2: EL1 may use the physical counter and timer */
#define CNTHCTL_EL2_EL1PCTEN	(1 << 0)
#define CNTHCTL_EL2_EL1PCEN	(1 << 1)

/* CPTR_EL2 (nVHE): RES1 bits 13:12 and 9:0, TFP (bit 10) clear = no FP trap */
#define CPTR_EL2_RES1		0x33ff

/* ICC_SRE_EL2: SRE | DFB | DIB | Enable (EL1 may use the ICC_* registers) */
#define ICC_SRE_EL2_INIT	0xf

/* CPACR_EL1.FPEN [21:20] = 0b11: FP/SIMD not trapped at EL0/EL1 */
#define CPACR_EL1_FPEN		(3 << 20)

/* SCTLR_EL1 */
#define SCTLR_EL1_RES1		0x30d00800	/* RES1 bits + SPAN, MMU/caches off */
#define SCTLR_ELx_M		(1 << 0)
#define SCTLR_ELx_C		(1 << 2)
#define SCTLR_ELx_I		(1 << 12)

/* SPSR for the eret from EL2: DAIF masked, EL1h */
#define SPSR_EL1H_DAIF_MASKED	0x3c5

/* ESR_ELx */
#define ESR_EC_SHIFT		26
#define ESR_EC_MASK		0x3f
#define ESR_IL			(1 << 25)
#define ESR_ISS_MASK		0x1ffffff
#define ESR_DABT_WNR		(1 << 6)
#define ESR_FSC_MASK		0x3f

/* Exception classes (ESR_ELx.EC) named in crash reports and handled */
#define EC_UNKNOWN		0x00
#define EC_WFX			0x01
#define EC_FP_ACCESS		0x07
#define EC_ILLEGAL_STATE	0x0e
#define EC_SVC64		0x15
#define EC_HVC64		0x16
#define EC_SMC64		0x17
#define EC_SYSREG		0x18
#define EC_IABT_LOWER		0x20
#define EC_IABT_CUR		0x21
#define EC_PC_ALIGN		0x22
#define EC_DABT_LOWER		0x24
#define EC_DABT_CUR		0x25
#define EC_SP_ALIGN		0x26
#define EC_FP_EXC64		0x2c
#define EC_SERROR		0x2f
#define EC_BREAKPT_CUR		0x31
#define EC_SOFTSTP_CUR		0x33
#define EC_WATCHPT_CUR		0x35
#define EC_BRK64		0x3c

/* Fault status codes (DFSC/IFSC) */
#define FSC_SYNC_EXTERNAL	0x10

#endif /* RKBARE_SYSREG_H */

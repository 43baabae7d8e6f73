/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/* The guest image (guest.bin, built first by run-qemu-pnv.sh), loaded into each domain. */
	.section .rodata
	.balign	8
	.globl	qpnv_guest_start, qpnv_guest_end
qpnv_guest_start:
	.incbin	"guest.bin"
	.balign	8
qpnv_guest_end:

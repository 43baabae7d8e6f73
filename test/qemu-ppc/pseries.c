/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * pseries: power-off through RTAS.  The RTAS tokens come from the device
 * tree, read through the VOF client interface (QEMU's hypercall
 * H_VOF_CLIENT takes an IEEE 1275 argument block).
 */
#include "board.h"

struct ci_args {
	uint32_t service;
	uint32_t nargs;
	uint32_t nret;
	uint32_t args[10];
};

static uint32_t ci_call(const char *service, unsigned int nargs, unsigned int nret,
			const uint32_t *in)
{
	struct ci_args a;
	unsigned int i;

	a.service = (uint32_t)(uintptr_t)service;
	a.nargs = nargs;
	a.nret = nret;
	for (i = 0; i < 10; i++)
		a.args[i] = i < nargs ? in[i] : 0;
	if (hcall(H_VOF_CLIENT, (uintptr_t)&a, 0, 0, 0) != 0)
		return 0xffffffffu;
	return nret ? a.args[nargs] : 0;
}

static uint32_t rtas_node;

static uint32_t rtas_token(const char *name)
{
	uint32_t tok = 0xffffffffu;
	uint32_t in[4] = { rtas_node, (uint32_t)(uintptr_t)name, (uint32_t)(uintptr_t)&tok, 4 };

	if (ci_call("getprop", 4, 1, in) != 4)
		return 0xffffffffu;
	return tok;
}

static uint32_t tok_power_off = 0xffffffffu, tok_os_term = 0xffffffffu;

void board_init(uint64_t r3, uint64_t r8, uint64_t r9)
{
	uint32_t in[1] = { (uint32_t)(uintptr_t)"/rtas" };

	/* No decrementer interrupt while MSR[EE] is on (4 s of virtual time). */
	__asm__ __volatile__("mtdec %0" : : "r"(0x7fffffffu));
	rtas_node = ci_call("finddevice", 1, 1, in);
	tok_power_off = rtas_token("power-off");
	tok_os_term = rtas_token("ibm,os-term");
	kprintf("board: /rtas phandle %x, power-off token %x, ibm,os-term token %x\n",
		rtas_node, tok_power_off, tok_os_term);
}

static int32_t rtas_call(uint32_t token, unsigned int nargs, unsigned int nret,
			 const uint32_t *in)
{
	uint32_t a[16];
	unsigned int i;

	a[0] = token;
	a[1] = nargs;
	a[2] = nret;
	for (i = 0; i < nargs; i++)
		a[3 + i] = in[i];
	for (i = 0; i < nret; i++)
		a[3 + nargs + i] = 0;
	hcall(H_RTAS, (uintptr_t)a, 0, 0, 0);
	return nret ? (int32_t)a[3 + nargs] : 0;
}

void board_exit(bool pass)
{
	static const char msg[] = QPPC_MARKER ": FAIL";
	uint32_t args[2] = { 0, 0 };

	kprintf("%s: %s\n", QPPC_MARKER, pass ? "PASS" : "FAIL");
	if (!pass) {
		/* A guest panic: with -action panic=exit-failure QEMU exits 1. */
		args[0] = (uint32_t)(uintptr_t)msg;
		rtas_call(tok_os_term, 1, 1, args);
		kputs("board: ibm,os-term returned\n");
		for (;;)
			;
	}
	rtas_call(tok_power_off, 2, 1, args);
	kputs("board: power-off returned\n");
	for (;;)
		;
}

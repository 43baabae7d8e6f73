/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * Console through H_PUT_TERM_CHAR, power-off through RTAS.  The RTAS
 * tokens come from the device tree, read through the VOF client interface
 * (QEMU's hypercall H_VOF_CLIENT takes an IEEE 1275 argument block).
 */
#include "board.h"

long hcall(unsigned long op, unsigned long a1, unsigned long a2,
	   unsigned long a3, unsigned long a4)
{
	register unsigned long r3 __asm__("r3") = op;
	register unsigned long r4 __asm__("r4") = a1;
	register unsigned long r5 __asm__("r5") = a2;
	register unsigned long r6 __asm__("r6") = a3;
	register unsigned long r7 __asm__("r7") = a4;

	__asm__ __volatile__("sc 1"
			     : "+r"(r3), "+r"(r4), "+r"(r5), "+r"(r6), "+r"(r7)
			     :
			     : "r0", "r8", "r9", "r10", "r11", "r12", "cr0", "cr1",
			       "cr5", "cr6", "cr7", "ctr", "xer", "memory");
	return r3;
}

void *memcpy(void *d, const void *s, size_t n)
{
	unsigned char *dp = d;
	const unsigned char *sp = s;

	while (n--)
		*dp++ = *sp++;
	return d;
}

void *memset(void *d, int c, size_t n)
{
	unsigned char *dp = d;

	while (n--)
		*dp++ = (unsigned char)c;
	return d;
}

static size_t slen(const char *s)
{
	size_t n = 0;

	while (s[n])
		n++;
	return n;
}

/* ---- console ---- */

static char outbuf[16];
static unsigned int outlen;

static void flush(void)
{
	uint64_t w[2] = { 0, 0 };

	if (!outlen)
		return;
	memcpy(w, outbuf, outlen);	/* big-endian: first char in the top byte */
	while (hcall(H_PUT_TERM_CHAR, 0, outlen, w[0], w[1]) != 0)
		;
	outlen = 0;
}

static void kputc(char c)
{
	outbuf[outlen++] = c;
	if (outlen == sizeof(outbuf) || c == '\n')
		flush();
}

void kputs(const char *s)
{
	while (*s)
		kputc(*s++);
	flush();
}

static void put_num(uint64_t v, unsigned int base, int width, char pad, bool neg)
{
	char tmp[24];
	int n = 0;

	do {
		tmp[n++] = "0123456789abcdef"[v % base];
		v /= base;
	} while (v);
	if (neg)
		tmp[n++] = '-';
	while (width-- > n)
		kputc(pad);
	while (n)
		kputc(tmp[--n]);
}

void kprintf(const char *fmt, ...)
{
	__builtin_va_list ap;

	__builtin_va_start(ap, fmt);
	for (; *fmt; fmt++) {
		int width = 0, lng = 0;
		char pad = ' ';
		uint64_t v;
		int64_t sv;

		if (*fmt != '%') {
			kputc(*fmt);
			continue;
		}
		fmt++;
		if (*fmt == '0')
			pad = '0';
		while (*fmt >= '0' && *fmt <= '9')
			width = width * 10 + (*fmt++ - '0');
		while (*fmt == 'l') {
			lng++;
			fmt++;
		}
		switch (*fmt) {
		case 'd':
			sv = lng ? __builtin_va_arg(ap, long) : __builtin_va_arg(ap, int);
			put_num(sv < 0 ? -(uint64_t)sv : (uint64_t)sv, 10, width, pad, sv < 0);
			break;
		case 'u':
		case 'x':
			v = lng ? __builtin_va_arg(ap, unsigned long)
				: __builtin_va_arg(ap, unsigned int);
			put_num(v, *fmt == 'u' ? 10 : 16, width, pad, false);
			break;
		case 's': {
			const char *s = __builtin_va_arg(ap, const char *);
			int n = (int)slen(s);

			while (width-- > n)
				kputc(' ');
			while (*s)
				kputc(*s++);
			break;
		}
		case 'c':
			kputc((char)__builtin_va_arg(ap, int));
			break;
		default:
			kputc(*fmt);
			break;
		}
	}
	__builtin_va_end(ap);
	flush();
}

/* ---- device tree through VOF, RTAS ---- */

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

void board_init(void)
{
	/* No decrementer interrupt while MSR[EE] is on (4 s of virtual time). */
	__asm__ __volatile__("mtdec %0" : : "r"(0x7fffffffu));
	uint32_t in[1] = { (uint32_t)(uintptr_t)"/rtas" };

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

void (*board_pmi_hook)(void);
uint64_t board_irqs[2];

/* Called by start.S for the decrementer and the performance monitor. */
void board_irq(unsigned long vec)
{
	if (vec == 0x900) {
		board_irqs[0]++;
		__asm__ __volatile__("mtdec %0" : : "r"(0x7fffffffu));
		return;
	}
	board_irqs[1]++;
	if (board_pmi_hook)
		board_pmi_hook();
	else
		__asm__ __volatile__("mtspr 795, %0" : : "r"(0x80000000ul));	/* freeze */
}

/* Called by start.S for any interrupt the image does not expect. */
void board_trap(unsigned long vec, unsigned long srr0, unsigned long srr1, unsigned long sp)
{
	kprintf("board: unexpected interrupt %lx at %lx msr %lx sp %lx\n", vec, srr0, srr1, sp);
	board_exit(false);
}

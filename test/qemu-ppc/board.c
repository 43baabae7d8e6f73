/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/* What every image shares: memory helpers, kprintf, interrupt reports. */
#include "board.h"

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

/*
 * n >= 1 iterations of a two-instruction loop: 2n + a constant.  Only here
 * is MSR[EE] on, so a performance monitor interrupt (QEMU 10, hardware)
 * never lands inside pmuvirt itself, nor in a guest's other code.
 */
void __attribute__((noinline)) qppc_spin(uint64_t n)
{
	uint64_t s = 0, msr;

	__asm__ __volatile__("mfmsr	%1\n\t"
			     "ori	%1, %1, 0x8000\n\t"
			     "mtmsrd	%1, 1\n\t"
			     "mtctr	%2\n"
			     "1:	addi	%0, %0, 1\n\t"
			     "bdnz	1b\n\t"
			     "mfmsr	%1\n\t"
			     "xori	%1, %1, 0x8000\n\t"
			     "mtmsrd	%1, 1"
			     : "+r"(s), "=&r"(msr)
			     : "r"(n)
			     : "ctr");
}

uint64_t qppc_xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* ---- console ---- */

static char outbuf[16];
static unsigned int outlen;

static void flush(void)
{
	if (!outlen)
		return;
	board_write(outbuf, outlen);
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

/* ---- interrupts ---- */

void (*board_pmi_hook)(void);
uint64_t board_irqs[2];

/* Called by start.S for the decrementer and the performance monitor. */
void board_irq(unsigned long vec, void *frame)
{
	(void)frame;
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

/*
 * Called by start.S for any interrupt the image does not expect; @hsrr0 and
 * @hsrr1 are read in the hypervisor image only (0 elsewhere).
 */
void board_trap(unsigned long vec, unsigned long srr0, unsigned long srr1, unsigned long sp,
		unsigned long hsrr0, unsigned long hsrr1)
{
	kprintf("board: unexpected interrupt %lx at %lx msr %lx sp %lx (hsrr0 %lx hsrr1 %lx)\n",
		vec, srr0, srr1, sp, hsrr0, hsrr1);
	board_exit(false);
}

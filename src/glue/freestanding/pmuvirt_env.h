/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/*
 * Minimal pmuvirt env with no host headers at all: used to prove the core
 * and arch code are host-neutral (-ffreestanding -nostdinc) and by
 * bare-metal images.
 */
#ifndef PMUVIRT_ENV_H
#define PMUVIRT_ENV_H

typedef unsigned char uint8_t;
typedef signed char int8_t;
typedef unsigned short uint16_t;
typedef short int16_t;
typedef unsigned int uint32_t;
typedef int int32_t;
typedef unsigned long long uint64_t;
typedef long long int64_t;
typedef __UINTPTR_TYPE__ uintptr_t;
typedef __SIZE_TYPE__ size_t;
#ifndef __cplusplus
typedef _Bool bool;
#define true 1
#define false 0
#endif
#define NULL ((void *)0)


#endif

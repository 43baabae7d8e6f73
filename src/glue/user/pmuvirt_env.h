/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/* pmuvirt env for hosted userspace (tests, tools, the simulator). */
#ifndef PMUVIRT_ENV_H
#define PMUVIRT_ENV_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include <errno.h>

#endif

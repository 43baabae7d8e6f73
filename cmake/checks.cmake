# SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause
# Host-neutrality checks are added here (see below).

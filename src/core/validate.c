/* SPDX-License-Identifier: GPL-2.0-or-later OR BSD-2-Clause */
/* Control validation and assignment of counters to physical slots. */
#include "pmuvirt_arch.h"

static bool default_slot_ok(const struct pmuvirt_pmu *pmu, const struct pmuvirt_counter_ctl *ctr,
			    unsigned int slot)
{
	if (ctr->flags & PMUVIRT_CTR_RAW)
		return pmu->slot[slot].cls == PMUVIRT_CLASS_GP;
	return pmuvirt_slot_counts(pmu, slot, (unsigned int)ctr->event);
}

struct assign_state {
	const struct pmuvirt_pmu *pmu;
	uint32_t cand[PMUVIRT_MAX_COUNTERS];
	int owner[PMUVIRT_MAX_SLOTS];	/* counter on each slot, -1 free */
};

/*
 * Place counter @ctr: a free candidate slot if there is one (dedicated
 * fixed/TSC slots before general ones, lower slots first), otherwise move
 * another counter out of the way (augmenting path).
 */
static bool place(struct assign_state *st, unsigned int ctr, uint32_t *visited)
{
	unsigned int pass, s;

	for (pass = 0; pass < 4; pass++) {
		bool want_free = pass < 2, dedicated_pass = !(pass & 1);

		for (s = 0; s < st->pmu->nr_slots; s++) {
			bool dedicated = st->pmu->slot[s].cls != PMUVIRT_CLASS_GP;

			if (dedicated != dedicated_pass || !(st->cand[ctr] & (1u << s)))
				continue;
			if (want_free) {
				if (st->owner[s] >= 0)
					continue;
				st->owner[s] = (int)ctr;
				return true;
			}
			if (*visited & (1u << s))
				continue;
			*visited |= 1u << s;
			if (place(st, (unsigned int)st->owner[s], visited)) {
				st->owner[s] = (int)ctr;
				return true;
			}
		}
	}
	return false;
}

static unsigned int popcount32(uint32_t v)
{
	unsigned int n = 0;

	for (; v; v &= v - 1)
		n++;
	return n;
}

int pmuvirt_assign(const struct pmuvirt_pmu *pmu, const struct pmuvirt_control *ctl,
		   uint8_t *slots, struct pmuvirt_error *err)
{
	struct assign_state st;
	unsigned int i, s, n = ctl->nr_counters;
	uint32_t done = 0;

	st.pmu = pmu;
	for (s = 0; s < PMUVIRT_MAX_SLOTS; s++)
		st.owner[s] = -1;
	for (i = 0; i < n; i++) {
		const struct pmuvirt_counter_ctl *c = &ctl->counter[i];

		st.cand[i] = 0;
		for (s = 0; s < pmu->nr_slots; s++) {
			bool ok = pmu->ops->slot_ok ? pmu->ops->slot_ok(pmu, c, s) :
						      default_slot_ok(pmu, c, s);
			if (ok)
				st.cand[i] |= 1u << s;
		}
		if (!st.cand[i])
			return pmuvirt_fail(err, (int)i, "no counter of this PMU can count this event",
					    -ENODEV);
	}
	/* Most constrained counters first; ties in control order. */
	while (popcount32(done) < n) {
		unsigned int best = n, best_n = 99;

		for (i = 0; i < n; i++) {
			unsigned int k = popcount32(st.cand[i]);

			if (!(done & (1u << i)) && k < best_n) {
				best = i;
				best_n = k;
			}
		}
		uint32_t visited = 0;

		if (!place(&st, best, &visited))
			return pmuvirt_fail(err, (int)best, "not enough counters for this combination",
					    -ENOSPC);
		done |= 1u << best;
	}
	for (s = 0; s < pmu->nr_slots; s++)
		if (st.owner[s] >= 0)
			slots[st.owner[s]] = (uint8_t)s;
	return 0;
}

/* Portable events a policy may list: every event but PMUVIRT_EV_NONE. */
#define POLICY_EVENTS	(((1u << PMUVIRT_EV_NR) - 1) & ~(1u << PMUVIRT_EV_NONE))

int pmuvirt_policy_validate(const struct pmuvirt_policy *pol)
{
	unsigned int i;

	if (!pol || pol->version != PMUVIRT_ABI_VERSION)
		return -EINVAL;
	if (pol->action != PMUVIRT_POLICY_ALLOW && pol->action != PMUVIRT_POLICY_DENY)
		return -EINVAL;
	if ((pol->flags & ~PMUVIRT_POLICY_FLAGS) || pol->reserved || (pol->events & ~POLICY_EVENTS))
		return -EINVAL;
	if (pol->nr_raw > PMUVIRT_POLICY_MAX_RAW)
		return -EINVAL;
	for (i = 0; i < pol->nr_raw; i++) {
		const struct pmuvirt_policy_raw *r = &pol->raw[i];

		if (r->reserved || (r->flags & ~PMUVIRT_POLICY_EXCLUDE) || (r->match & ~r->mask))
			return -EINVAL;
	}
	return 0;
}

/* Is raw code @code on the policy's list (KVM's masked events)? */
static bool policy_lists_raw(const struct pmuvirt_policy *pol, uint64_t code)
{
	unsigned int i, n = pol->nr_raw;
	bool included = false;

	if (n > PMUVIRT_POLICY_MAX_RAW)
		n = PMUVIRT_POLICY_MAX_RAW;
	for (i = 0; i < n; i++) {
		const struct pmuvirt_policy_raw *r = &pol->raw[i];

		if ((code & r->mask) != r->match)
			continue;
		if (r->flags & PMUVIRT_POLICY_EXCLUDE)
			return false;
		included = true;
	}
	return included;
}

bool pmuvirt_policy_permits(const struct pmuvirt_policy *pol, const struct pmuvirt_counter_ctl *ctr)
{
	bool listed;

	if (!pol)
		return true;
	if (ctr->flags & PMUVIRT_CTR_RAW)
		listed = policy_lists_raw(pol, ctr->event);
	else
		listed = ctr->event < 32 && (pol->events & (1u << ctr->event));
	return pol->action == PMUVIRT_POLICY_DENY ? !listed : listed;
}

int pmuvirt_validate(const struct pmuvirt_pmu *pmu, const struct pmuvirt_control *ctl,
		     unsigned int max_counters, struct pmuvirt_hwctl *img, uint8_t *slots,
		     struct pmuvirt_error *err)
{
	return pmuvirt_validate_policy(pmu, ctl, max_counters, img, slots, NULL, err);
}

int pmuvirt_validate_policy(const struct pmuvirt_pmu *pmu, const struct pmuvirt_control *ctl,
			    unsigned int max_counters, struct pmuvirt_hwctl *img, uint8_t *slots,
			    const struct pmuvirt_policy *pol, struct pmuvirt_error *err)
{
	struct pmuvirt_hwctl local_img;
	uint8_t local_slots[PMUVIRT_MAX_COUNTERS];
	unsigned int i;
	int ret;

	if (!pmu || !pmu->ops || !ctl)
		return pmuvirt_fail(err, -1, "missing PMU or control", -EINVAL);
	if (!max_counters || max_counters > PMUVIRT_MAX_COUNTERS)
		max_counters = PMUVIRT_MAX_COUNTERS;
	if (ctl->version != PMUVIRT_ABI_VERSION)
		return pmuvirt_fail(err, -1, "unsupported control version", -EINVAL);
	if (ctl->flags || ctl->reserved)
		return pmuvirt_fail(err, -1, "reserved control fields must be zero", -EINVAL);
	if (ctl->nr_counters > max_counters)
		return pmuvirt_fail(err, -1, "more counters than the context can hold", -ENOSPC);
	if (pmu->nr_slots > PMUVIRT_MAX_SLOTS)
		return pmuvirt_fail(err, -1, "PMU description is corrupt", -EINVAL);
	for (i = 0; i < pmu->nr_slots; i++)
		if (pmu->slot[i].width < 1 || pmu->slot[i].width > 64)
			return pmuvirt_fail(err, -1, "PMU description is corrupt", -EINVAL);

	for (i = 0; i < ctl->nr_counters; i++) {
		const struct pmuvirt_counter_ctl *c = &ctl->counter[i];

		if (c->reserved)
			return pmuvirt_fail(err, (int)i, "reserved counter field must be zero", -EINVAL);
		if (c->flags & ~PMUVIRT_CTR_FLAGS_ALL)
			return pmuvirt_fail(err, (int)i, "unknown counter flags", -EINVAL);
		if (!(c->flags & PMUVIRT_CTR_RAW) &&
		    (c->event == PMUVIRT_EV_NONE || c->event >= PMUVIRT_EV_NR))
			return pmuvirt_fail(err, (int)i, "unknown event", -EINVAL);
		if (!(c->flags & PMUVIRT_CTR_RAW) && c->event == PMUVIRT_EV_TSC) {
			if (c->period)
				return pmuvirt_fail(err, (int)i, "the TSC counts in a-mode only", -EINVAL);
			if (c->flags & (PMUVIRT_CTR_SAMPLE | PMUVIRT_CTR_SAMPLE_VALUES))
				return pmuvirt_fail(err, (int)i, "the TSC cannot sample", -EINVAL);
			if (c->flags & (PMUVIRT_CTR_USER | PMUVIRT_CTR_KERNEL | PMUVIRT_CTR_GUEST))
				return pmuvirt_fail(err, (int)i, "the TSC takes no user/kernel/guest filter",
						    -EINVAL);
			continue;
		}
		if (!(c->flags & (PMUVIRT_CTR_USER | PMUVIRT_CTR_KERNEL)))
			return pmuvirt_fail(err, (int)i, "counts neither user nor kernel mode", -EINVAL);
		if ((c->flags & PMUVIRT_CTR_GUEST) && !(pmu->caps & PMUVIRT_CAP_GUEST_ONLY))
			return pmuvirt_fail(err, (int)i, "this PMU cannot leave the host out (guest-only counting)",
					    -EOPNOTSUPP);
		if ((c->flags & PMUVIRT_CTR_SAMPLE) && !c->period)
			return pmuvirt_fail(err, (int)i, "sampling needs an i-mode period", -EINVAL);
		if ((c->flags & PMUVIRT_CTR_SAMPLE_VALUES) && !(c->flags & PMUVIRT_CTR_SAMPLE))
			return pmuvirt_fail(err, (int)i, "sample values need the sample flag", -EINVAL);
	}

	for (i = 0; pol && i < ctl->nr_counters; i++)
		if (!pmuvirt_policy_permits(pol, &ctl->counter[i]))
			return pmuvirt_fail(err, (int)i, "event not permitted by policy", -EPERM);

	if (!slots)
		slots = local_slots;
	if (!img)
		img = &local_img;
	ret = pmuvirt_assign(pmu, ctl, slots, err);
	if (ret)
		return ret;

	/* Any width: a period longer than half the range takes several armings. */
	for (i = 0; i < ctl->nr_counters; i++)
		if (ctl->counter[i].period > PMUVIRT_PERIOD_MAX)
			return pmuvirt_fail(err, (int)i, "i-mode period above 2^62", -ERANGE);

	for (i = 0; i < PMUVIRT_HWCTL_REGS; i++)
		img->reg[i] = 0;
	img->used = 0;
	img->reserved = 0;
	return pmu->ops->encode(pmu, ctl, slots, img, err);
}

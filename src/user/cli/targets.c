// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* --pid's processes, and those of the scope, that the seeding reads. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli/proc_match.h"
#include "cli/targets.h"
#include "common/fail.h"

#define MAX_PIDS (sizeof(((struct targets *)0)->pids) / sizeof(uint32_t))

static bool waits_for_names(const struct tt_options *o)
{
	return !o->strict && !o->command;
}

int targets_resolve(struct session *s)
{
	const struct tt_options *o = &s->opts;
	struct targets *tg = &s->targets;
	char err[TT_ERR_LEN];

	/* In run mode, COMMAND may start a NAME. */
	if (o->n_targets && proc_match("/proc", o->targets, o->n_targets,
				       o->strict && !o->command ? NULL : tg->found, tg->pids,
				       MAX_PIDS, &tg->n_pids, err, sizeof(err)))
		return tt_die(TT_EXIT_USAGE, "%s", err);
	return TT_EXIT_OK;
}

void targets_say_waiting(const struct session *s)
{
	const struct tt_options *o = &s->opts;

	for (size_t i = 0; i < o->n_targets && waits_for_names(o); i++)
		if (!s->targets.found[i])
			fprintf(stderr, "tcptrace: no process named '%s' yet: counted from its "
					"start (--strict refuses instead)\n", o->targets[i].name);
}

int targets_rematch(struct session *s, const uint32_t *hidden, size_t n_hidden,
		    const uint32_t **pids, size_t *n)
{
	const struct tt_options *o = &s->opts;
	struct targets *tg = &s->targets;
	uint32_t again[MAX_PIDS];
	size_t n_again = 0;
	char err[TT_ERR_LEN];

	if (o->n_targets && !proc_match("/proc", o->targets, o->n_targets, tg->found, again,
					MAX_PIDS, &n_again, err, sizeof(err))) {
		memcpy(tg->pids, again, n_again * sizeof(again[0]));
		tg->n_pids = n_again;
	}
	if (scope_is_set(&s->scope) && o->n_targets)
		tg->n_pids = scope_filter(&s->scope, tg->pids, tg->n_pids);
	*pids = tg->pids;
	*n = tg->n_pids;
	if (!scope_is_set(&s->scope) || o->n_targets)
		return TT_EXIT_OK;
	tg->in_scope = calloc(TT_SCOPE_MAX_PIDS, sizeof(*tg->in_scope));
	if (!tg->in_scope)
		return tt_die(TT_EXIT_RUNTIME, "out of memory");
	*pids = tg->in_scope;
	*n = scope_pids(&s->scope, tg->in_scope, TT_SCOPE_MAX_PIDS, hidden, n_hidden);
	return TT_EXIT_OK;
}

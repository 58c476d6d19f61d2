/*
 * sink.c: the list of output formats.
 */
#include "sink.h"

#include <stdio.h>
#include <string.h>

static const struct sink_ops *const sink_all[] = {&sink_text, &sink_csv, &sink_jsonl};

const struct sink_ops *sink_find(const char *name)
{
    for (size_t i = 0; i < sizeof sink_all / sizeof sink_all[0]; i++)
        if (!strcmp(sink_all[i]->name, name))
            return sink_all[i];
    return NULL;
}

const char *sink_names(void)
{
    static char names[128];
    if (!names[0])
        for (size_t i = 0; i < sizeof sink_all / sizeof sink_all[0]; i++)
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? ", " : "", sink_all[i]->name);
    return names;
}

UTIL_HOT bool sink_plan_current(bool *ready, int *nids, enum metric_id *ids, const struct sink *s)
{
    if (*ready && *nids == s->nids && !memcmp(ids, s->ids, (size_t)s->nids * sizeof *s->ids))
        return true;
    *ready = true;
    *nids = s->nids;
    memcpy(ids, s->ids, (size_t)s->nids * sizeof *s->ids);
    return false;
}

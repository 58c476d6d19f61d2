/*
 * rules_int.h: what rules.c (the tables, predicates and evaluation),
 * rules_evidence.c (the evidence each rule gives) and rules_doc.c (the
 * tables as documentation) share.
 */
#ifndef GPUMON_RULES_INT_H
#define GPUMON_RULES_INT_H

#include <math.h>
#include "rules.h"

/* MiB as a share of the GPU's memory, %; NAN unknown. */
static inline double rules_mem_share(const struct analyze_gpu_stats *s, double mib)
{
    return s->mem_ok && s->mem_total > 0 ? 100.0 * mib / s->mem_total : NAN;
}

/* What "starving" means (the input rules' shared condition), for the documentation: {name} is a threshold. */
extern const char rules_doc_starving[];

/* The evidence formatters of rule_table (rules_evidence.c): the figures a verdict stands on, in words. */
#define RULES_EVIDENCE(X) \
    X(lost) X(xid_critical) X(xid_app) X(ecc) X(reset) X(oom) X(stalled) X(thermal) X(power) X(memory) X(prealloc) \
    X(slow_node) X(straggler) X(starving) X(input_wait) X(steps) X(slowing) X(slow_rank) X(plain) X(pause) X(idle)
#define RULES_EVIDENCE_DECL(name) \
    void rules_ev_##name(const struct analyze_gpu_stats *s, const struct rule_config *c, struct sbuf *b);
RULES_EVIDENCE(RULES_EVIDENCE_DECL)
#undef RULES_EVIDENCE_DECL

#endif

/*
 * account.c: the accounting table (see account.h): a flat array searched
 * linearly (a node has few jobs and users at a time), entries updated in
 * place, sorted only when read.
 */
#include "account.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util.h"

struct account {
    struct account_entry e[ACCOUNT_MAX];
    unsigned n;
};

struct account *account_new(void)
{
    return xcalloc(1, sizeof(struct account));
}

void account_free(struct account *ac)
{
    free(ac);
}

static struct account_entry *account_entry_for(struct account *ac, enum account_kind kind, const char *key, double t)
{
    for (unsigned i = 0; i < ac->n; i++)
        if (ac->e[i].kind == kind && !strcmp(ac->e[i].key, key))
            return &ac->e[i];
    struct account_entry *e;
    if (ac->n < ACCOUNT_MAX) {
        e = &ac->e[ac->n++];
    } else {   /* full: the least recently seen makes room */
        e = &ac->e[0];
        for (unsigned i = 1; i < ac->n; i++)
            if (ac->e[i].last_t < e->last_t)
                e = &ac->e[i];
    }
    memset(e, 0, sizeof *e);
    e->kind = kind;
    snprintf(e->key, sizeof e->key, "%s", key);
    e->first_t = t;
    e->energy_j = NAN;
    return e;
}

static void account_one(struct account *ac, enum account_kind kind, const char *key, unsigned gpu, double t,
                        double dt, double idle, double energy_j)
{
    struct account_entry *e = account_entry_for(ac, kind, key, t);
    e->gpu_s += dt;
    if (!isnan(idle))
        e->idle_s += idle * dt;
    if (!isnan(energy_j))
        e->energy_j = (isnan(e->energy_j) ? 0 : e->energy_j) + energy_j;
    e->last_t = t;
    if (gpu < 128 && !(e->gpu_mask[gpu / 64] & (1ull << (gpu % 64)))) {
        e->gpu_mask[gpu / 64] |= 1ull << (gpu % 64);
        e->ngpus++;
    }
}

void account_add(struct account *ac, const struct record_gpu *rg, double t, double dt, double idle, double energy_j)
{
    if (!(dt > 0))
        return;
    for (unsigned j = 0; j < rg->njobs; j++)
        account_one(ac, ACCOUNT_JOB, rg->jobs[j], rg->index, t, dt / rg->njobs, idle, energy_j / rg->njobs);
    const char *users[RECORD_MAX_PROCS];
    unsigned nu = 0;
    for (unsigned p = 0; p < rg->nprocs; p++) {
        bool seen = !rg->procs[p].user[0];
        for (unsigned k = 0; k < nu && !seen; k++)
            seen = !strcmp(users[k], rg->procs[p].user);
        if (!seen)
            users[nu++] = rg->procs[p].user;
    }
    for (unsigned k = 0; k < nu; k++)
        account_one(ac, ACCOUNT_USER, users[k], rg->index, t, dt / nu, idle, energy_j / nu);
}

unsigned account_count(const struct account *ac)
{
    return ac->n;
}

static int account_cmp(const void *x, const void *y)
{
    const struct account_entry *a = *(const struct account_entry *const *)x, *b = *(const struct account_entry *const *)y;
    if (a->kind != b->kind)
        return a->kind < b->kind ? -1 : 1;
    return (a->gpu_s < b->gpu_s) - (a->gpu_s > b->gpu_s);
}

unsigned account_sorted(const struct account *ac, const struct account_entry **out)
{
    for (unsigned i = 0; i < ac->n; i++)
        out[i] = &ac->e[i];
    qsort(out, ac->n, sizeof *out, account_cmp);
    return ac->n;
}

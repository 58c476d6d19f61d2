/*
 * prom_dcgm.h: dcgm-exporter's names over the same record (--compat dcgm);
 * see prom_dcgm.c. prom.c calls it when asked; it knows nothing of prom.c.
 */
#ifndef GPUMON_PROM_DCGM_H
#define GPUMON_PROM_DCGM_H

#include "record.h"
#include "util.h"

/* Appends the DCGM_FI_DEV_* series of rec to b. */
void prom_render_dcgm(struct sbuf *b, const struct record *rec);

#endif

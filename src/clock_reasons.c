/*
 * clock_reasons.c: the clock event reason rows (see clock_reasons.h).
 */
#include "clock_reasons.h"

#include "nvml_abi.h"

_Static_assert(CLOCK_REASON_COUNT == 8, "NVML defines 8 reasons that limit a job's clocks (docs/nvml-facts.md §14)");

const struct clock_reason clock_reasons[CLOCK_REASON_COUNT] = {
#define CLOCK_REASON_ROW(P, id, bit, key, label, group, help, smi_help) \
    [CR_##id] = {bit, key, label, group, help, smi_help},
    CLOCK_REASON_TABLE(CLOCK_REASON_ROW, _)
#undef CLOCK_REASON_ROW
};

/* The bits match NVML's (nvml_abi.h, from docs/nvml-facts.md §14). */
_Static_assert(NVML_CLOCKS_EVENT_GPU_IDLE == 0x001ull && NVML_CLOCKS_EVENT_APP_CLOCKS == 0x002ull &&
               NVML_CLOCKS_EVENT_SW_POWER_CAP == 0x004ull && NVML_CLOCKS_THROTTLE_HW_SLOWDOWN == 0x008ull &&
               NVML_CLOCKS_EVENT_SYNC_BOOST == 0x010ull && NVML_CLOCKS_EVENT_SW_THERMAL == 0x020ull &&
               NVML_CLOCKS_THROTTLE_HW_THERMAL == 0x040ull && NVML_CLOCKS_THROTTLE_HW_POWER_BRAKE == 0x080ull,
               "clock reason bits");

unsigned long long clock_reason_mask(enum clock_reason_group group)
{
    unsigned long long mask = 0;
    for (int i = 0; i < CLOCK_REASON_COUNT; i++)
        if (clock_reasons[i].group == group)
            mask |= clock_reasons[i].bit;
    return mask;
}

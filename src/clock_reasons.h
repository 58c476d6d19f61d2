/*
 * clock_reasons.h: THE table of NVML's clock event ("throttle") reasons.
 *
 * One row per reason bit: the metric row it becomes (metrics.h expands this
 * table into its clocks_event_reasons.* rows), the key shared by the metric,
 * nvidia-smi's field and the Prometheus reason label, a short label for the
 * text layout, the group the analysis counts it in (heat or power), and the
 * help texts of gpumon and of nvidia-smi. Everything that lists reasons
 * (metric rows and readers, the text sink, the query fields, the rules'
 * evidence, the analysis' masks) walks this table. Depends on nothing.
 */
#ifndef GPUMON_CLOCK_REASONS_H
#define GPUMON_CLOCK_REASONS_H

enum clock_reason_group {
    CR_GROUP_NONE,      /* not a limit on the job's speed (idle, settings, sync boost) */
    CR_GROUP_THERMAL,   /* heat: hardware slowdown, software and hardware thermal */
    CR_GROUP_POWER,     /* power: software power cap, hardware power brake */
};

/* ROW(P, ID, bit, key, text label, group, help, nvidia-smi help); P passes through. */
#define CLOCK_REASON_TABLE(ROW, P) \
    ROW(P, IDLE, 0x001ull, "gpu_idle", "idle", CR_GROUP_NONE, \
        "Clocks lowered because nothing runs on the GPU", \
        "Nothing is running on the GPU and the clocks are dropping to idle") \
    ROW(P, APP, 0x002ull, "applications_clocks_setting", "app-clocks", CR_GROUP_NONE, \
        "Clocks limited by the applications clocks setting", \
        "Clocks limited by the applications clocks setting") \
    ROW(P, SW_POWER, 0x004ull, "sw_power_cap", "power-cap", CR_GROUP_POWER, \
        "Clocks lowered to keep power under the limit (software power cap)", \
        "Clocks lowered by the software power scaling algorithm") \
    ROW(P, HW_SLOW, 0x008ull, "hw_slowdown", "hw-slowdown", CR_GROUP_THERMAL, \
        "Hardware slowdown by 2x or more (heat, power brake or fast power trigger)", \
        "Hardware slowdown by 2x or more (temperature, power brake, fast power trigger)") \
    ROW(P, SYNC, 0x010ull, "sync_boost", "sync-boost", CR_GROUP_NONE, \
        "Clocks held down by the sync boost group", \
        "Clocks held down by the sync boost group") \
    ROW(P, SW_THERMAL, 0x020ull, "sw_thermal_slowdown", "sw-thermal", CR_GROUP_THERMAL, \
        "Clocks lowered by the software thermal limit", \
        "Software thermal slowdown: GPU or memory temperature above the limit") \
    ROW(P, HW_THERMAL, 0x040ull, "hw_thermal_slowdown", "hw-thermal", CR_GROUP_THERMAL, \
        "Hardware thermal slowdown", \
        "Hardware thermal slowdown: the GPU is too hot") \
    ROW(P, HW_BRAKE, 0x080ull, "hw_power_brake_slowdown", "power-brake", CR_GROUP_POWER, \
        "Hardware slowdown by the external power brake signal", \
        "Hardware slowdown by the external power brake")

enum clock_reason_id {
#define CLOCK_REASON_ENUM(P, id, ...) CR_##id,
    CLOCK_REASON_TABLE(CLOCK_REASON_ENUM, _)
#undef CLOCK_REASON_ENUM
    CLOCK_REASON_COUNT
};

struct clock_reason {
    unsigned long long bit;
    const char *key;            /* gpu_idle: clocks_event_reasons.gpu_idle, reason="gpu_idle" */
    const char *label;          /* idle: the text layout's word */
    enum clock_reason_group group;
    const char *help, *smi_help;
};

extern const struct clock_reason clock_reasons[CLOCK_REASON_COUNT];

/* The bits of every reason in group. */
unsigned long long clock_reason_mask(enum clock_reason_group group);

#endif

/*
 * nvml_abi.h: the subset of NVML's C ABI that gpumon uses, declared by us.
 *
 * There is no NVIDIA header at build time. Every type, constant and struct
 * here matches docs/nvml-facts.md (NVML API 13, LP64 Linux), and every
 * struct size and field offset is pinned by a _Static_assert below.
 *
 * This header is shared by exactly two modules: nvml.c (the dlopen loader in
 * gpumon) and sim/ (the simulated libnvidia-ml.so.1). NVML_FUNCTIONS is the
 * one list of the entry points gpumon uses: the loader builds its function
 * table from it and the simulator checks its definitions against it, so the
 * two can never disagree on a signature. NVML_CLIENT_FUNCTIONS lists what
 * other clients (nvtop, nvidia-ml-py tools, exporters) need on top; only the
 * simulator defines those. Each versioned variant has its own struct;
 * nothing here is "the current" struct of a family.
 */
#ifndef GPUMON_NVML_ABI_H
#define GPUMON_NVML_ABI_H

#include <stddef.h>

typedef int nvmlReturn_t;            /* enum, 4 bytes */
typedef struct nvmlDevice_st *nvmlDevice_t;
typedef struct nvmlEventSet_st *nvmlEventSet_t;
typedef struct nvmlGpmSample_st *nvmlGpmSample_t;

/* Return codes (docs/nvml-facts.md §4) with the text nvmlErrorString gives for each:
 * X(NAME, value, text). The one code/text table: the loader, the log
 * reader and writer (nvml_codes.c) and the simulator's nvmlErrorString all
 * expand it. Codes are only ever added, never renumbered. */
#define NVML_RETURN_CODES(X) \
    X(NVML_SUCCESS, 0, "Success") \
    X(NVML_ERROR_UNINITIALIZED, 1, "Uninitialized") \
    X(NVML_ERROR_INVALID_ARGUMENT, 2, "Invalid Argument") \
    X(NVML_ERROR_NOT_SUPPORTED, 3, "Not Supported") \
    X(NVML_ERROR_NO_PERMISSION, 4, "Insufficient Permissions") \
    X(NVML_ERROR_ALREADY_INITIALIZED, 5, "Already Initialized") \
    X(NVML_ERROR_NOT_FOUND, 6, "Not Found") \
    X(NVML_ERROR_INSUFFICIENT_SIZE, 7, "Insufficient Size") \
    X(NVML_ERROR_INSUFFICIENT_POWER, 8, "Insufficient External Power") \
    X(NVML_ERROR_DRIVER_NOT_LOADED, 9, "Driver Not Loaded") \
    X(NVML_ERROR_TIMEOUT, 10, "Timeout") \
    X(NVML_ERROR_IRQ_ISSUE, 11, "Interrupt request issue") \
    X(NVML_ERROR_LIBRARY_NOT_FOUND, 12, "NVML Shared Library Not Found") \
    X(NVML_ERROR_FUNCTION_NOT_FOUND, 13, "Function Not Found") \
    X(NVML_ERROR_CORRUPTED_INFOROM, 14, "Corrupted infoROM") \
    X(NVML_ERROR_GPU_IS_LOST, 15, "GPU is lost") \
    X(NVML_ERROR_RESET_REQUIRED, 16, "GPU requires restart") \
    X(NVML_ERROR_OPERATING_SYSTEM, 17, "The operating system has blocked the request.") \
    X(NVML_ERROR_LIB_RM_VERSION_MISMATCH, 18, "RM has detected an NVML/RM version mismatch.") \
    X(NVML_ERROR_IN_USE, 19, "In use by another client") \
    X(NVML_ERROR_MEMORY, 20, "Insufficient Memory") \
    X(NVML_ERROR_NO_DATA, 21, "No data") \
    X(NVML_ERROR_VGPU_ECC_NOT_SUPPORTED, 22, \
      "The requested vgpu operation is not available on target device, because ECC is enabled") \
    X(NVML_ERROR_INSUFFICIENT_RESOURCES, 23, "Ran out of critical resources, other than memory") \
    X(NVML_ERROR_FREQ_NOT_SUPPORTED, 24, "The requested frequency is not supported") \
    X(NVML_ERROR_ARGUMENT_VERSION_MISMATCH, 25, "The provided version is invalid/unsupported") \
    X(NVML_ERROR_DEPRECATED, 26, "The requested functionality has been deprecated") \
    X(NVML_ERROR_NOT_READY, 27, "The system is not ready for the request") \
    X(NVML_ERROR_GPU_NOT_FOUND, 28, "No GPUs were found") \
    X(NVML_ERROR_INVALID_STATE, 29, "Resource not in correct state") \
    X(NVML_ERROR_RESET_TYPE_NOT_SUPPORTED, 30, "The requested reset type is not supported") \
    X(NVML_ERROR_UNKNOWN, 999, "Unknown Error")

enum {
#define NVML_RETURN_ENUM(name, value, text) name = value,
    NVML_RETURN_CODES(NVML_RETURN_ENUM)
#undef NVML_RETURN_ENUM
};

/* Constants (docs/nvml-facts.md §5). */
#define NVML_DEVICE_NAME_V2_BUFFER_SIZE 96
#define NVML_DEVICE_UUID_V2_BUFFER_SIZE 96
#define NVML_DEVICE_SERIAL_BUFFER_SIZE 30
#define NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE 80
#define NVML_SYSTEM_NVML_VERSION_BUFFER_SIZE 80
#define NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE 32
#define NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE 16
#define NVML_DEVICE_VBIOS_VERSION_BUFFER_SIZE 32
#define NVML_INIT_FLAG_NO_GPUS 1u
#define NVML_INIT_FLAG_NO_ATTACH 2u
#define NVML_VALUE_NOT_AVAILABLE 0xFFFFFFFFFFFFFFFFull

/* Version words: sizeof | ver << 24 (docs/nvml-facts.md §3). */
#define NVML_STRUCT_VERSION(type, ver) ((unsigned int)(sizeof(type) | ((ver) << 24)))
#define nvmlMemory_v2 0x02000028u
#define nvmlTemperature_v1 0x0100000Cu
#define nvmlProcessDetailList_v1 0x01000018u

/* Enums used as parameters (docs/nvml-facts.md §10, §13, §15, §16, §18, §20). */
enum { NVML_TEMPERATURE_GPU = 0 };
enum {
    NVML_TEMPERATURE_THRESHOLD_SHUTDOWN = 0,
    NVML_TEMPERATURE_THRESHOLD_SLOWDOWN = 1,
    NVML_TEMPERATURE_THRESHOLD_MEM_MAX = 2,
    NVML_TEMPERATURE_THRESHOLD_GPU_MAX = 3,
    NVML_TEMPERATURE_THRESHOLD_ACOUSTIC_MIN = 4,
    NVML_TEMPERATURE_THRESHOLD_ACOUSTIC_CURR = 5,
    NVML_TEMPERATURE_THRESHOLD_ACOUSTIC_MAX = 6,
    NVML_TEMPERATURE_THRESHOLD_GPS_CURR = 7,
    NVML_TEMPERATURE_THRESHOLD_COUNT = 8
};
enum { NVML_CLOCK_GRAPHICS = 0, NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2, NVML_CLOCK_VIDEO = 3,
       NVML_CLOCK_COUNT = 4 };
enum { NVML_PCIE_UTIL_TX_BYTES = 0, NVML_PCIE_UTIL_RX_BYTES = 1 };
enum { NVML_PSTATE_0 = 0, NVML_PSTATE_15 = 15, NVML_PSTATE_UNKNOWN = 32 };
enum { NVML_FEATURE_DISABLED = 0, NVML_FEATURE_ENABLED = 1 };
enum { NVML_MEMORY_ERROR_TYPE_CORRECTED = 0, NVML_MEMORY_ERROR_TYPE_UNCORRECTED = 1 };
enum { NVML_VOLATILE_ECC = 0, NVML_AGGREGATE_ECC = 1 };
enum { NVML_PROCESS_MODE_COMPUTE = 0, NVML_PROCESS_MODE_GRAPHICS = 1, NVML_PROCESS_MODE_MPS = 2 };
enum { NVML_DEVICE_MIG_DISABLE = 0, NVML_DEVICE_MIG_ENABLE = 1 };
enum {                                /* nvmlComputeMode_t; 1 (EXCLUSIVE_THREAD) is no longer supported */
    NVML_COMPUTEMODE_DEFAULT = 0,
    NVML_COMPUTEMODE_EXCLUSIVE_THREAD = 1,
    NVML_COMPUTEMODE_PROHIBITED = 2,
    NVML_COMPUTEMODE_EXCLUSIVE_PROCESS = 3,
    NVML_COMPUTEMODE_COUNT = 4
};
enum {                                /* nvmlDeviceArchitecture_t (docs/nvml-facts.md §5); 11 and 12 are undefined */
    NVML_DEVICE_ARCH_KEPLER = 2,
    NVML_DEVICE_ARCH_MAXWELL = 3,
    NVML_DEVICE_ARCH_PASCAL = 4,
    NVML_DEVICE_ARCH_VOLTA = 5,
    NVML_DEVICE_ARCH_TURING = 6,
    NVML_DEVICE_ARCH_AMPERE = 7,
    NVML_DEVICE_ARCH_ADA = 8,
    NVML_DEVICE_ARCH_HOPPER = 9,
    NVML_DEVICE_ARCH_BLACKWELL = 10,
    NVML_DEVICE_ARCH_RUBIN = 13
};
#define NVML_DEVICE_ARCH_UNKNOWN 0xFFFFFFFFu
enum {
    NVML_TOTAL_POWER_SAMPLES = 0,
    NVML_GPU_UTILIZATION_SAMPLES = 1,
    NVML_MEMORY_UTILIZATION_SAMPLES = 2,
    NVML_ENC_UTILIZATION_SAMPLES = 3,
    NVML_DEC_UTILIZATION_SAMPLES = 4,
    NVML_PROCESSOR_CLK_SAMPLES = 5,
    NVML_MEMORY_CLK_SAMPLES = 6
};
enum {
    NVML_VALUE_TYPE_DOUBLE = 0,
    NVML_VALUE_TYPE_UNSIGNED_INT = 1,
    NVML_VALUE_TYPE_UNSIGNED_LONG = 2,
    NVML_VALUE_TYPE_UNSIGNED_LONG_LONG = 3,
    NVML_VALUE_TYPE_SIGNED_LONG_LONG = 4,
    NVML_VALUE_TYPE_SIGNED_INT = 5,
    NVML_VALUE_TYPE_UNSIGNED_SHORT = 6
};
typedef int nvmlTemperatureSensors_t;
typedef int nvmlTemperatureThresholds_t;
typedef int nvmlClockType_t;
typedef int nvmlPcieUtilCounter_t;
typedef int nvmlPstates_t;
typedef int nvmlEnableState_t;
typedef int nvmlMemoryErrorType_t;
typedef int nvmlEccCounterType_t;
typedef int nvmlSamplingType_t;
typedef int nvmlValueType_t;
typedef int nvmlComputeMode_t;
typedef int nvmlDriverModel_t;        /* Windows only: WDDM 0, WDM (TCC) 1, MCDM 2 */
typedef unsigned int nvmlDeviceArchitecture_t;

/* Field ids of nvmlDeviceGetFieldValues (docs/nvml-facts.md §19; 91, 140 and 141 from the same API 13 header).
 * Ids never change; scopeId selects an NVLink link (UINT_MAX: all links summed). */
enum {
    NVML_FI_DEV_ECC_CURRENT = 1,
    NVML_FI_DEV_ECC_PENDING = 2,
    NVML_FI_DEV_ECC_SBE_VOL_TOTAL = 3,
    NVML_FI_DEV_ECC_DBE_VOL_TOTAL = 4,
    NVML_FI_DEV_ECC_SBE_AGG_TOTAL = 5,
    NVML_FI_DEV_ECC_DBE_AGG_TOTAL = 6,
    NVML_FI_DEV_RETIRED_SBE = 29,
    NVML_FI_DEV_RETIRED_DBE = 30,
    NVML_FI_DEV_RETIRED_PENDING = 31,
    NVML_FI_DEV_MEMORY_TEMP = 82,
    NVML_FI_DEV_TOTAL_ENERGY_CONSUMPTION = 83,
    NVML_FI_DEV_NVLINK_LINK_COUNT = 91,
    NVML_FI_DEV_PCIE_REPLAY_COUNTER = 94,
    NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX = 138,
    NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX = 139,
    NVML_FI_DEV_NVLINK_THROUGHPUT_RAW_TX = 140,
    NVML_FI_DEV_NVLINK_THROUGHPUT_RAW_RX = 141,
    NVML_FI_DEV_REMAPPED_COR = 142,
    NVML_FI_DEV_REMAPPED_UNC = 143,
    NVML_FI_DEV_REMAPPED_PENDING = 144,
    NVML_FI_DEV_REMAPPED_FAILURE = 145,
    NVML_FI_DEV_POWER_AVERAGE = 185,
    NVML_FI_DEV_POWER_INSTANT = 186,
    NVML_FI_DEV_POWER_MIN_LIMIT = 187,
    NVML_FI_DEV_POWER_MAX_LIMIT = 188,
    NVML_FI_DEV_POWER_DEFAULT_LIMIT = 189,
    NVML_FI_DEV_POWER_CURRENT_LIMIT = 190,
    NVML_FI_DEV_ENERGY = 191,
    NVML_FI_DEV_POWER_REQUESTED_LIMIT = 192,
    NVML_FI_DEV_PCIE_COUNT_TX_BYTES = 197,
    NVML_FI_DEV_PCIE_COUNT_RX_BYTES = 198,
    NVML_FI_MAX = 303                 /* one past the highest id in API 13 */
};
#define NVML_FI_SCOPE_ALL_LINKS 0xFFFFFFFFu

/* Clock event ("throttle") reason bits (docs/nvml-facts.md §14). */
#define NVML_CLOCKS_EVENT_GPU_IDLE 0x001ull
#define NVML_CLOCKS_EVENT_APP_CLOCKS 0x002ull
#define NVML_CLOCKS_EVENT_SW_POWER_CAP 0x004ull
#define NVML_CLOCKS_THROTTLE_HW_SLOWDOWN 0x008ull
#define NVML_CLOCKS_EVENT_SYNC_BOOST 0x010ull
#define NVML_CLOCKS_EVENT_SW_THERMAL 0x020ull
#define NVML_CLOCKS_THROTTLE_HW_THERMAL 0x040ull
#define NVML_CLOCKS_THROTTLE_HW_POWER_BRAKE 0x080ull
#define NVML_CLOCKS_EVENT_DISPLAY_CLOCK 0x100ull
#define NVML_CLOCKS_EVENT_ALL 0x1FFull

/* Event types (docs/nvml-facts.md §21). */
#define nvmlEventTypeSingleBitEccError 0x1ull
#define nvmlEventTypeDoubleBitEccError 0x2ull
#define nvmlEventTypePState 0x4ull
#define nvmlEventTypeXidCriticalError 0x8ull

/* ---- structs (docs/nvml-facts.md §7-§21), LP64 ---- */

typedef struct {                      /* written by nvmlDeviceGetPciInfo_v3: 68 bytes */
    char busIdLegacy[NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE];
    unsigned int domain;
    unsigned int bus;
    unsigned int device;
    unsigned int pciDeviceId;
    unsigned int pciSubSystemId;
    char busId[NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE];
} nvmlPciInfo_t;

typedef struct {                      /* written by plain and _v2 GetPciInfo: 52 bytes */
    char busId[16];
    unsigned int domain;
    unsigned int bus;
    unsigned int device;
    unsigned int pciDeviceId;
    unsigned int pciSubSystemId;
    unsigned int reserved0, reserved1, reserved2, reserved3;
} nvmlPciInfo_legacy_t;

typedef struct { unsigned int gpu; unsigned int memory; } nvmlUtilization_t;

typedef struct { unsigned long long total, free, used; } nvmlMemory_t;

typedef struct {                      /* nvmlDeviceGetBAR1MemoryInfo: 24 bytes, all in bytes */
    unsigned long long bar1Total;
    unsigned long long bar1Free;
    unsigned long long bar1Used;
} nvmlBAR1Memory_t;

typedef struct {
    unsigned int version;
    unsigned long long total;
    unsigned long long reserved;
    unsigned long long free;
    unsigned long long used;
} nvmlMemory_v2_t;

typedef struct {
    unsigned int version;
    nvmlTemperatureSensors_t sensorType;
    int temperature;
} nvmlTemperature_v1_t;

typedef struct {                      /* plain Get*RunningProcesses: 16 bytes */
    unsigned int pid;
    unsigned long long usedGpuMemory;
} nvmlProcessInfo_v1_t;

typedef struct {                      /* _v2, and _v3 outside 535.43-535.86: 24 bytes */
    unsigned int pid;
    unsigned long long usedGpuMemory;
    unsigned int gpuInstanceId;
    unsigned int computeInstanceId;
} nvmlProcessInfo_v2_t;

typedef struct {                      /* _v3 on 535.43-535.86, and detail entries: 32 bytes */
    unsigned int pid;
    unsigned long long usedGpuMemory;
    unsigned int gpuInstanceId;
    unsigned int computeInstanceId;
    unsigned long long usedGpuCcProtectedMemory;
} nvmlProcessDetail_v1_t;

typedef struct {
    unsigned int version;
    unsigned int mode;
    unsigned int numProcArrayEntries;
    nvmlProcessDetail_v1_t *procArray;
} nvmlProcessDetailList_v1_t;

typedef union {
    double dVal;
    int siVal;
    unsigned int uiVal;
    unsigned long ulVal;
    unsigned long long ullVal;
    long long sllVal;
    unsigned short usVal;
} nvmlValue_t;

typedef struct {
    unsigned long long timeStamp;
    nvmlValue_t sampleValue;
} nvmlSample_t;

typedef struct {
    unsigned int pid;
    unsigned long long timeStamp;
    unsigned int smUtil, memUtil, encUtil, decUtil;
} nvmlProcessUtilizationSample_t;

typedef struct {
    unsigned int fieldId;
    unsigned int scopeId;
    long long timestamp;
    long long latencyUsec;
    nvmlValueType_t valueType;
    nvmlReturn_t nvmlReturn;
    nvmlValue_t value;
} nvmlFieldValue_t;

/* GPM (docs/nvml-facts.md §23). Both structs take the raw version 1, not the size|ver word. The metrics array is
 * sized by the newest header (API 13: NVML_GPM_METRIC_MAX 333, 13344 bytes); callers keep numMetrics
 * and the ids within what every driver since 520 knows (<= 98 entries, ids < 98). */
#define NVML_GPM_SUPPORT_VERSION 1u
#define NVML_GPM_METRICS_GET_VERSION 1u
#define NVML_GPM_METRIC_MAX 333
#define NVML_GPM_METRIC_MAX_R520 98
enum {
    NVML_GPM_METRIC_GRAPHICS_UTIL = 1,
    NVML_GPM_METRIC_SM_UTIL = 2,
    NVML_GPM_METRIC_SM_OCCUPANCY = 3,
    NVML_GPM_METRIC_INTEGER_UTIL = 4,
    NVML_GPM_METRIC_ANY_TENSOR_UTIL = 5,
    NVML_GPM_METRIC_DFMA_TENSOR_UTIL = 6,
    NVML_GPM_METRIC_HMMA_TENSOR_UTIL = 7,
    NVML_GPM_METRIC_DMMA_TENSOR_UTIL = 8,
    NVML_GPM_METRIC_IMMA_TENSOR_UTIL = 9,
    NVML_GPM_METRIC_DRAM_BW_UTIL = 10,
    NVML_GPM_METRIC_FP64_UTIL = 11,
    NVML_GPM_METRIC_FP32_UTIL = 12,
    NVML_GPM_METRIC_FP16_UTIL = 13,
    NVML_GPM_METRIC_PCIE_TX_PER_SEC = 20,
    NVML_GPM_METRIC_PCIE_RX_PER_SEC = 21,
    NVML_GPM_METRIC_NVLINK_TOTAL_RX_PER_SEC = 60,
    NVML_GPM_METRIC_NVLINK_TOTAL_TX_PER_SEC = 61
};

typedef struct {                      /* nvmlGpmQueryDeviceSupport: 8 bytes */
    unsigned int version;             /* NVML_GPM_SUPPORT_VERSION */
    unsigned int isSupportedDevice;
} nvmlGpmSupport_t;

typedef struct {                      /* 40 bytes */
    unsigned int metricId;            /* in */
    nvmlReturn_t nvmlReturn;          /* out: read value only when 0 */
    double value;
    struct {
        char *shortName;
        char *longName;
        char *unit;
    } metricInfo;
} nvmlGpmMetric_t;

typedef struct {                      /* nvmlGpmMetricsGet: 13344 bytes (API 13 header) */
    unsigned int version;             /* NVML_GPM_METRICS_GET_VERSION */
    unsigned int numMetrics;
    nvmlGpmSample_t sample1;
    nvmlGpmSample_t sample2;
    nvmlGpmMetric_t metrics[NVML_GPM_METRIC_MAX];
} nvmlGpmMetricsGet_t;

typedef struct {                      /* nvmlEventSetWait_v2: 32 bytes */
    nvmlDevice_t device;
    unsigned long long eventType;
    unsigned long long eventData;
    unsigned int gpuInstanceId;
    unsigned int computeInstanceId;
} nvmlEventData_t;

typedef struct {                      /* legacy nvmlEventSetWait: 24 bytes */
    nvmlDevice_t device;
    unsigned long long eventType;
    unsigned long long eventData;
} nvmlEventData_legacy_t;

/* ---- size and offset checks against docs/nvml-facts.md ---- */
#define NVML_ABI_CHECK(type, field, off) \
    _Static_assert(offsetof(type, field) == (off), #type "." #field " offset")
_Static_assert(sizeof(nvmlReturn_t) == 4, "nvmlReturn_t is 4 bytes");
_Static_assert(sizeof(nvmlDevice_t) == 8, "handles are 8-byte pointers");
_Static_assert(sizeof(nvmlPciInfo_t) == 68, "nvmlPciInfo_t");
NVML_ABI_CHECK(nvmlPciInfo_t, busIdLegacy, 0);
NVML_ABI_CHECK(nvmlPciInfo_t, domain, 16);
NVML_ABI_CHECK(nvmlPciInfo_t, bus, 20);
NVML_ABI_CHECK(nvmlPciInfo_t, device, 24);
NVML_ABI_CHECK(nvmlPciInfo_t, pciDeviceId, 28);
NVML_ABI_CHECK(nvmlPciInfo_t, pciSubSystemId, 32);
NVML_ABI_CHECK(nvmlPciInfo_t, busId, 36);
_Static_assert(sizeof(nvmlPciInfo_legacy_t) == 52, "legacy nvmlPciInfo_t");
NVML_ABI_CHECK(nvmlPciInfo_legacy_t, domain, 16);
NVML_ABI_CHECK(nvmlPciInfo_legacy_t, pciSubSystemId, 32);
NVML_ABI_CHECK(nvmlPciInfo_legacy_t, reserved0, 36);
NVML_ABI_CHECK(nvmlPciInfo_legacy_t, reserved3, 48);
_Static_assert(sizeof(nvmlUtilization_t) == 8, "nvmlUtilization_t");
NVML_ABI_CHECK(nvmlUtilization_t, memory, 4);
_Static_assert(sizeof(nvmlMemory_t) == 24, "nvmlMemory_t");
NVML_ABI_CHECK(nvmlMemory_t, free, 8);
NVML_ABI_CHECK(nvmlMemory_t, used, 16);
_Static_assert(sizeof(nvmlBAR1Memory_t) == 24, "nvmlBAR1Memory_t");
NVML_ABI_CHECK(nvmlBAR1Memory_t, bar1Free, 8);
NVML_ABI_CHECK(nvmlBAR1Memory_t, bar1Used, 16);
_Static_assert(sizeof(nvmlMemory_v2_t) == 40, "nvmlMemory_v2_t");
_Static_assert(NVML_STRUCT_VERSION(nvmlMemory_v2_t, 2) == nvmlMemory_v2, "memory v2 word");
NVML_ABI_CHECK(nvmlMemory_v2_t, total, 8);
NVML_ABI_CHECK(nvmlMemory_v2_t, reserved, 16);
NVML_ABI_CHECK(nvmlMemory_v2_t, free, 24);
NVML_ABI_CHECK(nvmlMemory_v2_t, used, 32);
_Static_assert(sizeof(nvmlTemperature_v1_t) == 12, "nvmlTemperature_v1_t");
_Static_assert(NVML_STRUCT_VERSION(nvmlTemperature_v1_t, 1) == nvmlTemperature_v1, "temp word");
NVML_ABI_CHECK(nvmlTemperature_v1_t, sensorType, 4);
NVML_ABI_CHECK(nvmlTemperature_v1_t, temperature, 8);
_Static_assert(sizeof(nvmlProcessInfo_v1_t) == 16, "nvmlProcessInfo_v1_t");
NVML_ABI_CHECK(nvmlProcessInfo_v1_t, usedGpuMemory, 8);
_Static_assert(sizeof(nvmlProcessInfo_v2_t) == 24, "nvmlProcessInfo_v2_t");
NVML_ABI_CHECK(nvmlProcessInfo_v2_t, usedGpuMemory, 8);
NVML_ABI_CHECK(nvmlProcessInfo_v2_t, gpuInstanceId, 16);
NVML_ABI_CHECK(nvmlProcessInfo_v2_t, computeInstanceId, 20);
_Static_assert(sizeof(nvmlProcessDetail_v1_t) == 32, "nvmlProcessDetail_v1_t");
NVML_ABI_CHECK(nvmlProcessDetail_v1_t, usedGpuCcProtectedMemory, 24);
_Static_assert(sizeof(nvmlProcessDetailList_v1_t) == 24, "nvmlProcessDetailList_v1_t");
_Static_assert(NVML_STRUCT_VERSION(nvmlProcessDetailList_v1_t, 1) == nvmlProcessDetailList_v1,
               "detail list word");
NVML_ABI_CHECK(nvmlProcessDetailList_v1_t, mode, 4);
NVML_ABI_CHECK(nvmlProcessDetailList_v1_t, numProcArrayEntries, 8);
NVML_ABI_CHECK(nvmlProcessDetailList_v1_t, procArray, 16);
_Static_assert(sizeof(nvmlValue_t) == 8, "nvmlValue_t");
_Static_assert(sizeof(nvmlSample_t) == 16, "nvmlSample_t");
NVML_ABI_CHECK(nvmlSample_t, sampleValue, 8);
_Static_assert(sizeof(nvmlProcessUtilizationSample_t) == 32, "process utilization sample");
NVML_ABI_CHECK(nvmlProcessUtilizationSample_t, timeStamp, 8);
NVML_ABI_CHECK(nvmlProcessUtilizationSample_t, smUtil, 16);
NVML_ABI_CHECK(nvmlProcessUtilizationSample_t, decUtil, 28);
_Static_assert(sizeof(nvmlFieldValue_t) == 40, "nvmlFieldValue_t");
NVML_ABI_CHECK(nvmlFieldValue_t, scopeId, 4);
NVML_ABI_CHECK(nvmlFieldValue_t, timestamp, 8);
NVML_ABI_CHECK(nvmlFieldValue_t, latencyUsec, 16);
NVML_ABI_CHECK(nvmlFieldValue_t, valueType, 24);
NVML_ABI_CHECK(nvmlFieldValue_t, nvmlReturn, 28);
NVML_ABI_CHECK(nvmlFieldValue_t, value, 32);
_Static_assert(sizeof(nvmlEventData_t) == 32, "nvmlEventData_t");
NVML_ABI_CHECK(nvmlEventData_t, eventType, 8);
NVML_ABI_CHECK(nvmlEventData_t, eventData, 16);
NVML_ABI_CHECK(nvmlEventData_t, gpuInstanceId, 24);
NVML_ABI_CHECK(nvmlEventData_t, computeInstanceId, 28);
_Static_assert(sizeof(nvmlEventData_legacy_t) == 24, "legacy nvmlEventData_t");
_Static_assert(sizeof(nvmlGpmSample_t) == 8, "GPM sample handle");
_Static_assert(sizeof(nvmlGpmSupport_t) == 8, "nvmlGpmSupport_t");
NVML_ABI_CHECK(nvmlGpmSupport_t, isSupportedDevice, 4);
_Static_assert(sizeof(nvmlGpmMetric_t) == 40, "nvmlGpmMetric_t");
NVML_ABI_CHECK(nvmlGpmMetric_t, nvmlReturn, 4);
NVML_ABI_CHECK(nvmlGpmMetric_t, value, 8);
NVML_ABI_CHECK(nvmlGpmMetric_t, metricInfo.shortName, 16);
NVML_ABI_CHECK(nvmlGpmMetric_t, metricInfo.longName, 24);
NVML_ABI_CHECK(nvmlGpmMetric_t, metricInfo.unit, 32);
_Static_assert(sizeof(nvmlGpmMetricsGet_t) == 13344, "nvmlGpmMetricsGet_t (API 13)");
_Static_assert(24 + NVML_GPM_METRIC_MAX_R520 * sizeof(nvmlGpmMetric_t) == 3944, "the 520-570 header's size");
NVML_ABI_CHECK(nvmlGpmMetricsGet_t, numMetrics, 4);
NVML_ABI_CHECK(nvmlGpmMetricsGet_t, sample1, 8);
NVML_ABI_CHECK(nvmlGpmMetricsGet_t, sample2, 16);
NVML_ABI_CHECK(nvmlGpmMetricsGet_t, metrics, 24);

/*
 * Every NVML entry point gpumon knows, as X(name, parameter list). Names are
 * the exported symbols, versioned ones spelled out (a dlopen client never
 * relies on nvml.h's plain-name mapping). nvmlErrorString is declared apart
 * because it returns a string.
 */
#define NVML_DEV nvmlDevice_t device
#define NVML_FUNCTIONS(X) \
    X(nvmlInit, (void)) \
    X(nvmlInit_v2, (void)) \
    X(nvmlInitWithFlags, (unsigned int flags)) \
    X(nvmlShutdown, (void)) \
    X(nvmlSystemGetDriverVersion, (char *version, unsigned int length)) \
    X(nvmlSystemGetNVMLVersion, (char *version, unsigned int length)) \
    X(nvmlSystemGetCudaDriverVersion, (int *cudaDriverVersion)) \
    X(nvmlSystemGetCudaDriverVersion_v2, (int *cudaDriverVersion)) \
    X(nvmlSystemGetProcessName, (unsigned int pid, char *name, unsigned int length)) \
    X(nvmlDeviceGetCount, (unsigned int *deviceCount)) \
    X(nvmlDeviceGetCount_v2, (unsigned int *deviceCount)) \
    X(nvmlDeviceGetHandleByIndex, (unsigned int index, nvmlDevice_t *device)) \
    X(nvmlDeviceGetHandleByIndex_v2, (unsigned int index, nvmlDevice_t *device)) \
    X(nvmlDeviceGetHandleByUUID, (const char *uuid, nvmlDevice_t *device)) \
    X(nvmlDeviceGetHandleByPciBusId, (const char *pciBusId, nvmlDevice_t *device)) \
    X(nvmlDeviceGetHandleByPciBusId_v2, (const char *pciBusId, nvmlDevice_t *device)) \
    X(nvmlDeviceGetIndex, (NVML_DEV, unsigned int *index)) \
    X(nvmlDeviceGetName, (NVML_DEV, char *name, unsigned int length)) \
    X(nvmlDeviceGetUUID, (NVML_DEV, char *uuid, unsigned int length)) \
    X(nvmlDeviceGetSerial, (NVML_DEV, char *serial, unsigned int length)) \
    X(nvmlDeviceGetPciInfo, (NVML_DEV, nvmlPciInfo_legacy_t *pci)) \
    X(nvmlDeviceGetPciInfo_v2, (NVML_DEV, nvmlPciInfo_legacy_t *pci)) \
    X(nvmlDeviceGetPciInfo_v3, (NVML_DEV, nvmlPciInfo_t *pci)) \
    X(nvmlDeviceGetUtilizationRates, (NVML_DEV, nvmlUtilization_t *utilization)) \
    X(nvmlDeviceGetSamples, (NVML_DEV, nvmlSamplingType_t type, unsigned long long lastSeenTimeStamp, \
                             nvmlValueType_t *sampleValType, unsigned int *sampleCount, \
                             nvmlSample_t *samples)) \
    X(nvmlDeviceGetProcessUtilization, (NVML_DEV, nvmlProcessUtilizationSample_t *utilization, \
                                        unsigned int *processSamplesCount, \
                                        unsigned long long lastSeenTimeStamp)) \
    X(nvmlDeviceGetMemoryInfo, (NVML_DEV, nvmlMemory_t *memory)) \
    X(nvmlDeviceGetMemoryInfo_v2, (NVML_DEV, nvmlMemory_v2_t *memory)) \
    X(nvmlDeviceGetTemperature, (NVML_DEV, nvmlTemperatureSensors_t sensorType, unsigned int *temp)) \
    X(nvmlDeviceGetTemperatureV, (NVML_DEV, nvmlTemperature_v1_t *temperature)) \
    X(nvmlDeviceGetTemperatureThreshold, (NVML_DEV, nvmlTemperatureThresholds_t thresholdType, unsigned int *temp)) \
    X(nvmlDeviceGetFanSpeed, (NVML_DEV, unsigned int *speed)) \
    X(nvmlDeviceGetFanSpeed_v2, (NVML_DEV, unsigned int fan, unsigned int *speed)) \
    X(nvmlDeviceGetNumFans, (NVML_DEV, unsigned int *numFans)) \
    X(nvmlDeviceGetPowerUsage, (NVML_DEV, unsigned int *power)) \
    X(nvmlDeviceGetPowerManagementLimit, (NVML_DEV, unsigned int *limit)) \
    X(nvmlDeviceGetEnforcedPowerLimit, (NVML_DEV, unsigned int *limit)) \
    X(nvmlDeviceGetTotalEnergyConsumption, (NVML_DEV, unsigned long long *energy)) \
    X(nvmlDeviceGetClockInfo, (NVML_DEV, nvmlClockType_t type, unsigned int *clock)) \
    X(nvmlDeviceGetMaxClockInfo, (NVML_DEV, nvmlClockType_t type, unsigned int *clock)) \
    X(nvmlDeviceGetCurrentClocksEventReasons, (NVML_DEV, unsigned long long *reasons)) \
    X(nvmlDeviceGetCurrentClocksThrottleReasons, (NVML_DEV, unsigned long long *reasons)) \
    X(nvmlDeviceGetSupportedClocksEventReasons, (NVML_DEV, unsigned long long *reasons)) \
    X(nvmlDeviceGetSupportedClocksThrottleReasons, (NVML_DEV, unsigned long long *reasons)) \
    X(nvmlDeviceGetPerformanceState, (NVML_DEV, nvmlPstates_t *pState)) \
    X(nvmlDeviceGetPcieThroughput, (NVML_DEV, nvmlPcieUtilCounter_t counter, unsigned int *value)) \
    X(nvmlDeviceGetCurrPcieLinkGeneration, (NVML_DEV, unsigned int *currLinkGen)) \
    X(nvmlDeviceGetCurrPcieLinkWidth, (NVML_DEV, unsigned int *currLinkWidth)) \
    X(nvmlDeviceGetMaxPcieLinkGeneration, (NVML_DEV, unsigned int *maxLinkGen)) \
    X(nvmlDeviceGetMaxPcieLinkWidth, (NVML_DEV, unsigned int *maxLinkWidth)) \
    X(nvmlDeviceGetEncoderUtilization, (NVML_DEV, unsigned int *utilization, unsigned int *samplingPeriodUs)) \
    X(nvmlDeviceGetDecoderUtilization, (NVML_DEV, unsigned int *utilization, unsigned int *samplingPeriodUs)) \
    X(nvmlDeviceGetEccMode, (NVML_DEV, nvmlEnableState_t *current, nvmlEnableState_t *pending)) \
    X(nvmlDeviceGetTotalEccErrors, (NVML_DEV, nvmlMemoryErrorType_t errorType, \
                                    nvmlEccCounterType_t counterType, unsigned long long *eccCounts)) \
    X(nvmlDeviceGetRetiredPagesPendingStatus, (NVML_DEV, nvmlEnableState_t *isPending)) \
    X(nvmlDeviceGetRemappedRows, (NVML_DEV, unsigned int *corrRows, unsigned int *uncRows, \
                                  unsigned int *isPending, unsigned int *failureOccurred)) \
    X(nvmlDeviceGetComputeRunningProcesses, (NVML_DEV, unsigned int *infoCount, nvmlProcessInfo_v1_t *infos)) \
    X(nvmlDeviceGetComputeRunningProcesses_v2, (NVML_DEV, unsigned int *infoCount, nvmlProcessInfo_v2_t *infos)) \
    X(nvmlDeviceGetComputeRunningProcesses_v3, (NVML_DEV, unsigned int *infoCount, nvmlProcessInfo_v2_t *infos)) \
    X(nvmlDeviceGetGraphicsRunningProcesses, (NVML_DEV, unsigned int *infoCount, nvmlProcessInfo_v1_t *infos)) \
    X(nvmlDeviceGetGraphicsRunningProcesses_v2, (NVML_DEV, unsigned int *infoCount, nvmlProcessInfo_v2_t *infos)) \
    X(nvmlDeviceGetGraphicsRunningProcesses_v3, (NVML_DEV, unsigned int *infoCount, nvmlProcessInfo_v2_t *infos)) \
    X(nvmlDeviceGetRunningProcessDetailList, (NVML_DEV, nvmlProcessDetailList_v1_t *plist)) \
    X(nvmlDeviceGetConfComputeMemSizeInfo, (NVML_DEV, void *memInfo)) \
    X(nvmlEventSetCreate, (nvmlEventSet_t *set)) \
    X(nvmlDeviceGetSupportedEventTypes, (NVML_DEV, unsigned long long *eventTypes)) \
    X(nvmlDeviceRegisterEvents, (NVML_DEV, unsigned long long eventTypes, nvmlEventSet_t set)) \
    X(nvmlEventSetWait, (nvmlEventSet_t set, nvmlEventData_legacy_t *data, unsigned int timeoutms)) \
    X(nvmlEventSetWait_v2, (nvmlEventSet_t set, nvmlEventData_t *data, unsigned int timeoutms)) \
    X(nvmlEventSetFree, (nvmlEventSet_t set)) \
    X(nvmlGpmQueryDeviceSupport, (NVML_DEV, nvmlGpmSupport_t *gpmSupport)) \
    X(nvmlGpmSampleAlloc, (nvmlGpmSample_t *gpmSample)) \
    X(nvmlGpmSampleFree, (nvmlGpmSample_t gpmSample)) \
    X(nvmlGpmSampleGet, (NVML_DEV, nvmlGpmSample_t gpmSample)) \
    X(nvmlGpmMetricsGet, (nvmlGpmMetricsGet_t *metricsGet)) \
    X(nvmlDeviceGetVbiosVersion, (NVML_DEV, char *version, unsigned int length)) \
    X(nvmlDeviceGetCudaComputeCapability, (NVML_DEV, int *major, int *minor)) \
    X(nvmlDeviceGetPersistenceMode, (NVML_DEV, nvmlEnableState_t *mode)) \
    X(nvmlDeviceGetComputeMode, (NVML_DEV, nvmlComputeMode_t *mode)) \
    X(nvmlDeviceGetDisplayMode, (NVML_DEV, nvmlEnableState_t *display)) \
    X(nvmlDeviceGetDisplayActive, (NVML_DEV, nvmlEnableState_t *isActive)) \
    X(nvmlDeviceGetDriverModel, (NVML_DEV, nvmlDriverModel_t *current, nvmlDriverModel_t *pending)) \
    X(nvmlDeviceGetDriverModel_v2, (NVML_DEV, nvmlDriverModel_t *current, nvmlDriverModel_t *pending)) \
    X(nvmlDeviceGetPowerManagementDefaultLimit, (NVML_DEV, unsigned int *defaultLimit)) \
    X(nvmlDeviceGetPowerManagementLimitConstraints, (NVML_DEV, unsigned int *minLimit, unsigned int *maxLimit)) \
    X(nvmlDeviceGetFieldValues, (NVML_DEV, int valuesCount, nvmlFieldValue_t *values)) \
    X(nvmlDeviceGetMigMode, (NVML_DEV, unsigned int *currentMode, unsigned int *pendingMode)) \
    X(nvmlDeviceGetBAR1MemoryInfo, (NVML_DEV, nvmlBAR1Memory_t *bar1Memory)) \
    X(nvmlDeviceGetMaxMigDeviceCount, (NVML_DEV, unsigned int *count)) \
    X(nvmlDeviceGetMigDeviceHandleByIndex, (NVML_DEV, unsigned int index, nvmlDevice_t *migDevice)) \
    X(nvmlDeviceGetGpuInstanceId, (NVML_DEV, unsigned int *id)) \
    X(nvmlDeviceGetComputeInstanceId, (NVML_DEV, unsigned int *id))

/*
 * Entry points gpumon does not call but other NVML clients do at start-up or
 * on every refresh (nvtop 3.x, nvidia-ml-py and the tools on it such as
 * gpustat and nvitop, gonvml exporters; sim/exports_device_info.c says who
 * calls what). The simulator defines them so that it can stand in for the
 * driver under those clients; gpumon's loader does not resolve them.
 */
#define NVML_CLIENT_FUNCTIONS(X) \
    X(nvmlDeviceGetMinorNumber, (NVML_DEV, unsigned int *minorNumber)) \
    X(nvmlDeviceGetArchitecture, (NVML_DEV, nvmlDeviceArchitecture_t *arch)) \
    X(nvmlDeviceSetPowerManagementLimit, (NVML_DEV, unsigned int limit)) \
    X(nvmlDeviceGetMPSComputeRunningProcesses, (NVML_DEV, unsigned int *infoCount, nvmlProcessInfo_v1_t *infos)) \
    X(nvmlDeviceGetMPSComputeRunningProcesses_v2, (NVML_DEV, unsigned int *infoCount, \
                                                   nvmlProcessInfo_v2_t *infos)) \
    X(nvmlDeviceGetMPSComputeRunningProcesses_v3, (NVML_DEV, unsigned int *infoCount, \
                                                   nvmlProcessInfo_v2_t *infos)) \
    X(nvmlDeviceIsMigDeviceHandle, (NVML_DEV, unsigned int *isMigDevice)) \
    X(nvmlDeviceGetDeviceHandleFromMigDeviceHandle, (nvmlDevice_t migDevice, nvmlDevice_t *device))

typedef const char *(*nvmlErrorString_fn)(nvmlReturn_t result);

/*
 * gpumon's own extension, exported only by the simulator (sim/exports_clock.c): the scenario's clock.
 * *speed is scenario seconds per wall second (GPUMON_SIM_SPEED: 1 unless fast-played, 0 frozen) and
 * *epochUs the scenario's time as a wall-clock-equivalent time, microseconds since the Unix epoch (the
 * epoch time the samples carry). Returns NVML_SUCCESS, 1 before init, 2 for a NULL pointer. The driver's
 * library has no such symbol: the loader resolves it with dlsym and does without it.
 */
#define GPUMON_SIM_CLOCK_SYMBOL "gpumonSimClock"
typedef nvmlReturn_t (*gpumonSimClock_fn)(double *speed, unsigned long long *epochUs);
/* The simulator's other extension (sim/exports_init.c): nonzero when its last init failed because the
 * scenario (or a GPUMON_SIM_* variable) is invalid, 0 when a valid scenario asked for the failure. */
#define GPUMON_SIM_INVALID_SYMBOL "gpumonSimScenarioInvalid"
typedef int (*gpumonSimScenarioInvalid_fn)(void);

#endif

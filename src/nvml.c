/*
 * nvml.c: loading libnvidia-ml with dlopen and resolving one function table.
 *
 * Library order: explicit --nvml path, $GPUMON_NVML, libnvidia-ml.so.1,
 * libnvidia-ml.so. Every symbol of NVML_FUNCTIONS is looked up by its exact
 * exported name (never through nvml.h's plain-name mapping); the newest
 * variant of each family is picked at call sites or here (init, count,
 * handle, memory, PCI info). The CUDA toolkit ships a stub libnvidia-ml.so for linking only:
 * it lives in a ".../stubs/" directory and its nvmlErrorString returns an
 * empty string, and we say so instead of reporting a failed init.
 */
#include "nvml.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util.h"

struct nvml_api nvml;

static const char *const nvml_sonames[] = {"libnvidia-ml.so.1", "libnvidia-ml.so"};

static const char nvml_try_sim[] =
    "To try gpumon without a GPU, run it on the bundled simulated GPUs: gpumon --sim "
    "(or --nvml PATH/libnvidia-ml.so.1 from the simulator).";

static void nvml_fail(struct nvml_failure *why, enum nvml_cause cause, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void nvml_fail(struct nvml_failure *why, enum nvml_cause cause, int code, const char *fmt, ...)
{
    va_list ap;
    why->cause = cause;
    why->code = code;
    va_start(ap, fmt);
    vsnprintf(why->message, sizeof why->message, fmt, ap);
    va_end(ap);
}

static int nvml_resolve(void)
{
#define NVML_RESOLVE(name, params) *(void **)&nvml.name = dlsym(nvml.dl, #name);
    NVML_FUNCTIONS(NVML_RESOLVE)
#undef NVML_RESOLVE
    *(void **)&nvml.nvmlErrorString = dlsym(nvml.dl, "nvmlErrorString");
    nvml.init = nvml.nvmlInit_v2 ? nvml.nvmlInit_v2 : nvml.nvmlInit;
    nvml.get_count = nvml.nvmlDeviceGetCount_v2 ? nvml.nvmlDeviceGetCount_v2 : nvml.nvmlDeviceGetCount;
    nvml.get_handle = nvml.nvmlDeviceGetHandleByIndex_v2 ? nvml.nvmlDeviceGetHandleByIndex_v2
                                                         : nvml.nvmlDeviceGetHandleByIndex;
    return (nvml.init && nvml.nvmlShutdown && nvml.get_count && nvml.get_handle && nvml.nvmlErrorString)
               ? 0
               : -1;
}

static void nvml_missing_required(char *out, size_t n)
{
    const struct { const char *name; const void *fn; } req[] = {
        {"nvmlInit_v2", (const void *)nvml.init},
        {"nvmlShutdown", (const void *)nvml.nvmlShutdown},
        {"nvmlDeviceGetCount_v2", (const void *)nvml.get_count},
        {"nvmlDeviceGetHandleByIndex_v2", (const void *)nvml.get_handle},
        {"nvmlErrorString", (const void *)nvml.nvmlErrorString},
    };
    out[0] = '\0';
    for (size_t i = 0; i < sizeof req / sizeof req[0]; i++) {
        if (req[i].fn)
            continue;
        size_t len = strlen(out);
        snprintf(out + len, n - len, "%s%s", len ? ", " : "", req[i].name);
    }
}

/* The 535.43.02-535.86.05 drivers write 32-byte _v3 process entries. */
static int nvml_stride_for(const char *driver)
{
    unsigned major = 0, minor = 0;
    if (sscanf(driver, "%u.%u", &major, &minor) == 2 && major == 535 && minor >= 43 && minor < 98)
        return 32;
    if (!driver[0] && nvml.nvmlDeviceGetConfComputeMemSizeInfo && !nvml.nvmlDeviceGetRunningProcessDetailList)
        return 32;
    return 24;
}

static bool nvml_looks_like_stub(void)
{
    if (strstr(nvml.path, "/stubs/"))
        return true;
    const char *s = nvml.nvmlErrorString(NVML_ERROR_UNKNOWN);
    return !s || !*s;
}

static int nvml_load(const char *path, struct nvml_failure *why)
{
    char tried[2048] = "";
    if (!path || !*path)
        path = getenv("GPUMON_NVML");
    if (path && *path) {
        nvml.dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        if (!nvml.dl) {
            char a[UTIL_SHORT + 1], b[UTIL_SHORT + 1];
            nvml_fail(why, NVML_CAUSE_NOT_FOUND, 0, "cannot load the NVML library %s: %s. Check the path given "
                      "with --nvml or GPUMON_NVML. %s", util_short(path, a), util_short(dlerror(), b),
                      nvml_try_sim);
            return -1;
        }
    } else {
        for (size_t i = 0; i < sizeof nvml_sonames / sizeof nvml_sonames[0] && !nvml.dl; i++) {
            nvml.dl = dlopen(nvml_sonames[i], RTLD_NOW | RTLD_LOCAL);
            size_t len = strlen(tried);
            snprintf(tried + len, sizeof tried - len, "%s%s", len ? ", " : "", nvml_sonames[i]);
        }
        if (!nvml.dl) {
            nvml_fail(why, NVML_CAUSE_NOT_FOUND, 0, "no NVIDIA driver library found (tried %s): the NVIDIA "
                      "driver is not installed, or this container was started without GPU support "
                      "(docker --gpus all / the NVIDIA container toolkit). %s", tried, nvml_try_sim);
            return -1;
        }
    }
    struct link_map *lm = NULL;
    if (dlinfo(nvml.dl, RTLD_DI_LINKMAP, &lm) == 0 && lm && lm->l_name)
        snprintf(nvml.path, sizeof nvml.path, "%s", lm->l_name);
    else
        snprintf(nvml.path, sizeof nvml.path, "%s", path ? path : "libnvidia-ml.so.1");
    if (nvml_resolve() != 0) {
        char missing[512];
        nvml_missing_required(missing, sizeof missing);
        nvml_fail(why, NVML_CAUSE_BAD_LIBRARY, 0, "%s is not a usable NVML library: missing %s. %s",
                  nvml.path, missing, nvml_try_sim);
        return -1;
    }
    return 0;
}

static int nvml_start(struct nvml_failure *why)
{
    nvmlReturn_t r = nvml.nvmlInitWithFlags ? nvml.nvmlInitWithFlags(NVML_INIT_FLAG_NO_GPUS) : nvml.init();
    if (r == NVML_SUCCESS)
        return 0;
    /* the simulator failing as its scenario asks: the driver's messages, without "try the simulator" */
    const char *nvml_sim_hint = dlsym(nvml.dl, GPUMON_SIM_INVALID_SYMBOL) ? "(These are the simulated GPUs: "
                                "their scenario's init_error.)" : nvml_try_sim;
    if (nvml_looks_like_stub()) {
        nvml_fail(why, NVML_CAUSE_STUB, r, "%s is the CUDA toolkit's stub library, not a driver: it exists "
                  "only for linking. Remove its directory from LD_LIBRARY_PATH, or install the NVIDIA driver "
                  "(it provides the real libnvidia-ml.so.1). %s", nvml.path, nvml_sim_hint);
        return -1;
    }
    const char *es = nvml_error(r);
    switch (r) {
    case NVML_ERROR_DRIVER_NOT_LOADED:
        nvml_fail(why, NVML_CAUSE_DRIVER, r, "NVML could not be initialized: the NVIDIA kernel driver is not "
                  "loaded (%s, code %d). Load it (modprobe nvidia) or check that this machine has an NVIDIA "
                  "GPU. %s", es, r, nvml_sim_hint);
        break;
    case NVML_ERROR_NO_PERMISSION:
        nvml_fail(why, NVML_CAUSE_PERMISSION, r, "NVML could not be initialized: no permission to open the GPU "
                  "devices (%s, code %d). Check access to /dev/nvidia* (group membership, container device "
                  "rules).", es, r);
        break;
    case NVML_ERROR_LIB_RM_VERSION_MISMATCH:
        nvml_fail(why, NVML_CAUSE_MISMATCH, r, "NVML could not be initialized: the driver library and the "
                  "kernel module have different versions (%s, code %d), typically after a driver upgrade "
                  "without a reboot. Reboot, or reload the nvidia kernel modules.", es, r);
        break;
    default:
        nvml_fail(why, NVML_CAUSE_INIT, r, "NVML could not be initialized: %s (code %d) from %s. Check the "
                  "driver installation (dmesg | grep -i nvrm). %s", es, r, nvml.path, nvml_sim_hint);
        break;
    }
    return -1;
}

int nvml_open(const char *path, struct nvml_failure *why)
{
    memset(why, 0, sizeof *why);
    if (nvml_load(path, why) != 0 || nvml_start(why) != 0) {
        gpumonSimScenarioInvalid_fn invalid = NULL;
        if (nvml.dl)
            *(void **)&invalid = dlsym(nvml.dl, GPUMON_SIM_INVALID_SYMBOL);
        why->simulator = invalid != NULL;
        why->sim_invalid = invalid && invalid();
        if (nvml.dl)
            dlclose(nvml.dl);
        memset(&nvml, 0, sizeof nvml);
        return -1;
    }
    if (nvml.nvmlSystemGetDriverVersion &&
        nvml.nvmlSystemGetDriverVersion(nvml.driver_version, sizeof nvml.driver_version) != NVML_SUCCESS)
        nvml.driver_version[0] = '\0';
    /* the CUDA version as nvidia-smi shows it: _v2 asks libcuda, the plain call answers NVML's own
     * (docs/nvml-facts.md §2.2) */
    if ((!nvml.nvmlSystemGetCudaDriverVersion_v2 ||
         nvml.nvmlSystemGetCudaDriverVersion_v2(&nvml.cuda_version) != NVML_SUCCESS) &&
        (!nvml.nvmlSystemGetCudaDriverVersion ||
         nvml.nvmlSystemGetCudaDriverVersion(&nvml.cuda_version) != NVML_SUCCESS))
        nvml.cuda_version = 0;
    nvml.process_stride = nvml_stride_for(nvml.driver_version);
    nvml_clock_open();
    return 0;
}

void nvml_close(void)
{
    if (!nvml.dl)
        return;
    nvml.nvmlShutdown();
    dlclose(nvml.dl);
    memset(&nvml, 0, sizeof nvml);
}

const char *nvml_error(nvmlReturn_t r)
{
    const char *s = nvml.nvmlErrorString ? nvml.nvmlErrorString(r) : NULL;
    return s && *s ? s : "Unknown Error";
}

UTIL_HOT nvmlReturn_t nvml_memory(nvmlDevice_t dev, struct nvml_memory *out)
{
    nvmlReturn_t rc = NVML_ERROR_FUNCTION_NOT_FOUND;
    memset(out, 0, sizeof *out);
    if (nvml.nvmlDeviceGetMemoryInfo_v2) {
        nvmlMemory_v2_t m;
        memset(&m, 0, sizeof m);
        m.version = nvmlMemory_v2;
        rc = nvml.nvmlDeviceGetMemoryInfo_v2(dev, &m);
        if (rc == NVML_SUCCESS) {
            *out = (struct nvml_memory){m.total, m.used, m.free, m.reserved, true};
            return rc;
        }
    }
    if ((rc == NVML_ERROR_FUNCTION_NOT_FOUND || nvml_code_is_unsupported(rc)) && nvml.nvmlDeviceGetMemoryInfo) {
        nvmlMemory_t m;
        memset(&m, 0, sizeof m);
        rc = nvml.nvmlDeviceGetMemoryInfo(dev, &m);
        *out = (struct nvml_memory){m.total, m.used, m.free, 0, false};
    }
    return rc;
}

nvmlReturn_t nvml_pci_info(nvmlDevice_t dev, nvmlPciInfo_t *out)
{
    nvmlReturn_t rc = NVML_ERROR_FUNCTION_NOT_FOUND;
    memset(out, 0, sizeof *out);
    if (nvml.nvmlDeviceGetPciInfo_v3)
        rc = nvml.nvmlDeviceGetPciInfo_v3(dev, out);
    nvmlReturn_t (*legacy)(nvmlDevice_t, nvmlPciInfo_legacy_t *) =
        nvml.nvmlDeviceGetPciInfo_v2 ? nvml.nvmlDeviceGetPciInfo_v2 : nvml.nvmlDeviceGetPciInfo;
    if (rc != NVML_SUCCESS && !nvml_code_is_lost(rc) && legacy) {
        nvmlPciInfo_legacy_t l;
        memset(&l, 0, sizeof l);
        rc = legacy(dev, &l);
        memset(out, 0, sizeof *out);
        snprintf(out->busId, sizeof out->busId, "%.*s", (int)sizeof l.busId, l.busId);
        out->domain = l.domain, out->bus = l.bus, out->device = l.device;
        out->pciDeviceId = l.pciDeviceId, out->pciSubSystemId = l.pciSubSystemId;
    }
    out->busId[sizeof out->busId - 1] = '\0';
    return rc;
}

/*
 * exports_identity.c: index, name, UUID, serial and PCI information.
 *
 * Identity calls work on any valid handle of a GPU that is not lost and
 * belong to no family that a scenario can switch off, except the serial
 * (family "serial": boards without an infoROM serial answer 3). Strings
 * honour `length` including the NUL (too short: 7, nothing written). The
 * three PCI variants each write their own struct: plain and _v2 the legacy
 * 52-byte layout, _v3 the 68-byte nvmlPciInfo_t, and never a byte more.
 */
#include "sim_exports.h"

#include <stdio.h>
#include <string.h>

nvmlReturn_t nvmlDeviceGetIndex(nvmlDevice_t device, unsigned int *index)
{
    unsigned int gpu;
    long long now;
    nvmlReturn_t rc = sim_dev_enter(__func__, device, SIM_F_ALWAYS, &gpu, &now);

    if (rc != NVML_SUCCESS)
        return rc;
    if (!index)
        return sim_leave(NVML_ERROR_INVALID_ARGUMENT);
    *index = gpu;
    return sim_leave(NVML_SUCCESS);
}

/* Field selector for identity_string. */
enum identity_field { IDENTITY_NAME, IDENTITY_UUID, IDENTITY_SERIAL };

static nvmlReturn_t identity_string(const char *func, nvmlDevice_t device, char *buf, unsigned int length,
                                    enum identity_field field)
{
    unsigned int gpu;
    long long now;
    const struct sim_gpu *g;
    nvmlReturn_t rc = sim_dev_enter(func, device, field == IDENTITY_SERIAL ? SIM_F_SERIAL : SIM_F_ALWAYS,
                                    &gpu, &now);

    if (rc != NVML_SUCCESS)
        return rc;
    g = &sim_state.sc->gpus[gpu];
    return sim_leave(sim_state_copy_string(buf, length,
                                           field == IDENTITY_NAME   ? g->name
                                           : field == IDENTITY_UUID ? g->uuid
                                                                    : g->serial));
}

nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char *name, unsigned int length)
{
    return identity_string(__func__, device, name, length, IDENTITY_NAME);
}

nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char *uuid, unsigned int length)
{
    return identity_string(__func__, device, uuid, length, IDENTITY_UUID);
}

nvmlReturn_t nvmlDeviceGetSerial(nvmlDevice_t device, char *serial, unsigned int length)
{
    return identity_string(__func__, device, serial, length, IDENTITY_SERIAL);
}

/* Fills the 68-byte struct; the legacy calls copy its common prefix. */
static nvmlReturn_t identity_pci(const char *func, nvmlDevice_t device, nvmlPciInfo_t *out)
{
    unsigned int gpu;
    long long now;
    const struct sim_gpu *g;
    nvmlReturn_t rc = sim_dev_enter(func, device, SIM_F_ALWAYS, &gpu, &now);

    if (rc != NVML_SUCCESS)
        return rc;
    g = &sim_state.sc->gpus[gpu];
    memset(out, 0, sizeof(*out));
    snprintf(out->busIdLegacy, sizeof(out->busIdLegacy), "%04X:%02X:%02X.0", g->pci_domain & 0xFFFFu,
             g->pci_bus, g->pci_device);
    snprintf(out->busId, sizeof(out->busId), "%08X:%02X:%02X.0", g->pci_domain, g->pci_bus, g->pci_device);
    out->domain = g->pci_domain;
    out->bus = g->pci_bus;
    out->device = g->pci_device;
    out->pciDeviceId = g->pci_device_id;
    out->pciSubSystemId = g->pci_subsystem_id;
    return sim_leave(NVML_SUCCESS);
}

static nvmlReturn_t identity_pci_legacy(const char *func, nvmlDevice_t device, nvmlPciInfo_legacy_t *pci)
{
    nvmlPciInfo_t full;
    nvmlPciInfo_legacy_t legacy;
    nvmlReturn_t rc;

    if (!pci) {
        rc = identity_pci(func, device, &full);
        return rc != NVML_SUCCESS ? rc : NVML_ERROR_INVALID_ARGUMENT;
    }
    rc = identity_pci(func, device, &full);
    if (rc != NVML_SUCCESS)
        return rc;
    memset(&legacy, 0, sizeof(legacy));
    memcpy(legacy.busId, full.busIdLegacy, sizeof(legacy.busId));
    legacy.domain = full.domain;
    legacy.bus = full.bus;
    legacy.device = full.device;
    legacy.pciDeviceId = full.pciDeviceId;
    legacy.pciSubSystemId = full.pciSubSystemId;
    memcpy(pci, &legacy, sizeof(legacy));
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetPciInfo(nvmlDevice_t device, nvmlPciInfo_legacy_t *pci)
{
    return identity_pci_legacy(__func__, device, pci);
}

nvmlReturn_t nvmlDeviceGetPciInfo_v2(nvmlDevice_t device, nvmlPciInfo_legacy_t *pci)
{
    return identity_pci_legacy(__func__, device, pci);
}

nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t device, nvmlPciInfo_t *pci)
{
    nvmlPciInfo_t full;
    nvmlReturn_t rc = identity_pci(__func__, device, &full);

    if (rc != NVML_SUCCESS)
        return rc;
    if (!pci)
        return NVML_ERROR_INVALID_ARGUMENT;
    memcpy(pci, &full, sizeof(full));
    return NVML_SUCCESS;
}

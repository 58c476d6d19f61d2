/*
 * sim_board.c: the board table (see sim_board.h).
 *
 * Rows are searched in order, so a more specific needle comes first
 * ("H100 PCIe" before "H100", "A100-SXM4-80GB" before "A100"). Compute
 * capabilities are NVIDIA's (Volta 7.0, Turing 7.5, A100/A30 8.0, GA102
 * 8.6, Ada 8.9, Hopper 9.0, B100/B200 10.0, B300 10.3); BAR1 is 256 MiB on
 * GeForce boards without resizable BAR and large on data-centre boards;
 * MIG exists on A100/A30 (7/4 devices), Hopper and Blackwell data-centre
 * parts. An unknown name gets the default row, which keeps the built-in
 * A100-SXM4-80GB defaults of the rest of the scenario.
 *
 * Fans, serials and idle figures follow nvidia-smi captures of real boards
 * (/work/shared/captures): an H100 SXM idles at 345 MHz SM, 765 MHz video,
 * its HBM at full clock, about 70 W, with no fan (SXM modules are cooled by
 * the chassis; Hopper and Blackwell SXM rows follow it); a passive L40S has
 * no fan and idles at 210 MHz SM with its GDDR6 down to 405 MHz, ~37 W; a
 * GeForce RTX 2080 SUPER has a fan, no serial ([N/A]: GeForce boards carry
 * none), and idles at 300 MHz SM, 405 MHz memory, 540 MHz video, ~38 W.
 * GDDR boards without a capture (RTX 4090/3090, T4) drop memory to 405 MHz
 * too; the A100, A30, V100 and T4 rows keep one fan until a capture says
 * otherwise (the built-in scenario's A100 plays a fan signal).
 */
#include "sim_board.h"

#include "nvml_abi.h"

#include <ctype.h>
#include <string.h>

#define BOARD_GIB_IN_MIB 1024u

static const struct sim_board board_table[] = {
    /* needle, pci id, arch, cc, BAR1 MiB, vbios, MIG, NVLinks, GPM,
     *   fans, serial, idle SM MHz, idle memory MHz (0: max), idle video MHz, idle W (0: from the limit) */
    { "GH200", 0x234210DE, NVML_DEVICE_ARCH_HOPPER, 9, 0, 256 * BOARD_GIB_IN_MIB, "96.00.89.00.01", 7, 18, 1,
      0, 1, 345, 0, 765, 0 },
    { "GB300", 0, NVML_DEVICE_ARCH_BLACKWELL, 10, 3, 256 * BOARD_GIB_IN_MIB, "97.00.98.00.01", 7, 18, 1,
      0, 1, 345, 0, 765, 0 },
    { "GB200", 0x290110DE, NVML_DEVICE_ARCH_BLACKWELL, 10, 0, 256 * BOARD_GIB_IN_MIB, "97.00.5B.00.01", 7, 18, 1,
      0, 1, 345, 0, 765, 0 },
    { "B300", 0, NVML_DEVICE_ARCH_BLACKWELL, 10, 3, 256 * BOARD_GIB_IN_MIB, "97.00.88.00.01", 7, 18, 1,
      0, 1, 345, 0, 765, 0 },
    { "B200", 0x290110DE, NVML_DEVICE_ARCH_BLACKWELL, 10, 0, 256 * BOARD_GIB_IN_MIB, "97.00.45.00.01", 7, 18, 1,
      0, 1, 345, 0, 765, 0 },
    { "B100", 0, NVML_DEVICE_ARCH_BLACKWELL, 10, 0, 256 * BOARD_GIB_IN_MIB, "97.00.26.00.01", 7, 18, 1,
      0, 1, 345, 0, 765, 0 },
    { "H200", 0x233510DE, NVML_DEVICE_ARCH_HOPPER, 9, 0, 256 * BOARD_GIB_IN_MIB, "96.00.A5.00.01", 7, 18, 1,
      0, 1, 345, 0, 765, 0 },
    { "H800", 0, NVML_DEVICE_ARCH_HOPPER, 9, 0, 128 * BOARD_GIB_IN_MIB, "96.00.61.00.01", 7, 8, 1,
      0, 1, 345, 0, 765, 0 },
    { "H100 PCIe", 0x233110DE, NVML_DEVICE_ARCH_HOPPER, 9, 0, 128 * BOARD_GIB_IN_MIB, "96.00.30.00.01", 7, 0, 1,
      0, 1, 345, 0, 765, 0 },
    { "H100", 0x233010DE, NVML_DEVICE_ARCH_HOPPER, 9, 0, 128 * BOARD_GIB_IN_MIB, "96.00.74.00.0D", 7, 18, 1,
      0, 1, 345, 0, 765, 70 },
    { "H20", 0, NVML_DEVICE_ARCH_HOPPER, 9, 0, 128 * BOARD_GIB_IN_MIB, "96.00.99.00.01", 7, 18, 1,
      0, 1, 345, 0, 765, 0 },
    { "A100-SXM4-80GB", 0x20B210DE, NVML_DEVICE_ARCH_AMPERE, 8, 0, 128 * BOARD_GIB_IN_MIB, "92.00.45.00.03", 7, 12, 0,
      1, 1, 210, 0, 555, 0 },
    { "A100-PCIE-40GB", 0x20F110DE, NVML_DEVICE_ARCH_AMPERE, 8, 0, 64 * BOARD_GIB_IN_MIB, "92.00.25.00.08", 7, 0, 0,
      1, 1, 210, 0, 555, 0 },
    { "A100", 0x20B010DE, NVML_DEVICE_ARCH_AMPERE, 8, 0, 64 * BOARD_GIB_IN_MIB, "92.00.25.00.08", 7, 12, 0,
      1, 1, 210, 0, 555, 0 },
    { "A30", 0x20B710DE, NVML_DEVICE_ARCH_AMPERE, 8, 0, 32 * BOARD_GIB_IN_MIB, "92.00.66.00.01", 4, 0, 0,
      1, 1, 210, 0, 555, 0 },
    { "L40S", 0x26B910DE, NVML_DEVICE_ARCH_ADA, 8, 9, 64 * BOARD_GIB_IN_MIB, "95.02.66.00.01", 0, 0, 0,
      0, 1, 210, 405, 555, 37 },
    { "RTX 4090", 0x268410DE, NVML_DEVICE_ARCH_ADA, 8, 9, 256, "95.02.18.80.5F", 0, 0, 0,
      1, 0, 210, 405, 555, 0 },
    { "RTX 3090", 0x220410DE, NVML_DEVICE_ARCH_AMPERE, 8, 6, 256, "94.02.42.00.A9", 0, 0, 0,
      1, 0, 210, 405, 555, 0 },
    { "RTX 2080 SUPER", 0x1E8110DE, NVML_DEVICE_ARCH_TURING, 7, 5, 256, "90.04.7A.40.73", 0, 0, 0,
      1, 0, 300, 405, 540, 38 },
    { "V100", 0x1DB110DE, NVML_DEVICE_ARCH_VOLTA, 7, 0, 16 * BOARD_GIB_IN_MIB, "88.00.4F.00.09", 0, 6, 0,
      1, 1, 210, 0, 555, 0 },
    { "T4", 0x1EB810DE, NVML_DEVICE_ARCH_TURING, 7, 5, 256, "90.04.96.00.A0", 0, 0, 0,
      1, 1, 210, 405, 555, 0 },
};

static const struct sim_board board_default = {
    NULL, SIM_BOARD_DEFAULT_PCI_ID, NVML_DEVICE_ARCH_AMPERE, 8, 0, 128 * BOARD_GIB_IN_MIB, "92.00.45.00.03", 7, 12, 0,
    1, 1, 210, 0, 555, 0,
};

/* True when needle occurs in name with no letter or digit right before or after it. */
static int board_word_in(const char *name, const char *needle)
{
    size_t n = strlen(needle);

    for (const char *p = strstr(name, needle); p; p = strstr(p + 1, needle))
        if ((p == name || !isalnum((unsigned char)p[-1])) && !isalnum((unsigned char)p[n]))
            return 1;
    return 0;
}

const struct sim_board *sim_board_for(const char *name)
{
    for (size_t i = 0; i < sizeof(board_table) / sizeof(board_table[0]); i++)
        if (board_word_in(name, board_table[i].needle))
            return &board_table[i];
    return &board_default;
}

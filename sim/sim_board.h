/*
 * sim_board.h: what a simulated GPU is, judged by its product name.
 *
 * One table (sim_board.c) is the master copy of everything that follows
 * from the board model rather than from the scenario: PCI device id,
 * architecture, CUDA compute capability, BAR1 size, VBIOS version, how many
 * MIG devices it can hold, NVLink count, GPM support, fans, whether it
 * reports a serial, and its idle clocks and power. A scenario's explicit
 * keys (pci_device_id, gpm, vbios, nvlinks, bar1_total, fans, serial, and
 * signals for the clocks and power) override the row; the scenario code resolves a GPU's row once, after parsing.
 * Values are typical of each model, not read from a particular board;
 * the idle figures, fans and serials of the H100 SXM, L40S and GeForce RTX
 * 2080 SUPER rows are those of nvidia-smi captures of real boards.
 */
#ifndef GPUMON_SIM_BOARD_H
#define GPUMON_SIM_BOARD_H

#define SIM_BOARD_DEFAULT_PCI_ID 0x20B210DEu   /* A100-SXM4-80GB, for rows without a known id */

struct sim_board {
    const char *needle;             /* a word of the product name; NULL on the default row */
    unsigned int pci_device_id;     /* device << 16 | vendor; 0: SIM_BOARD_DEFAULT_PCI_ID */
    unsigned int arch;              /* NVML_DEVICE_ARCH_* */
    int cc_major, cc_minor;         /* CUDA compute capability */
    unsigned int bar1_mib;          /* BAR1 aperture */
    const char *vbios;              /* "92.00.45.00.03" */
    unsigned int mig_max;           /* MIG devices under one parent; 0: no MIG */
    unsigned int nvlinks;           /* NVLink links; 0: none */
    int gpm;                        /* GPM (Hopper and newer) */
    unsigned int fans;              /* 0: fanless (SXM modules, passive cards): fan calls answer 3 */
    int serial;                     /* 0: no serial (GeForce): GetSerial answers 3 */
    unsigned int idle_sm_mhz;       /* SM and graphics clocks at idle */
    unsigned int idle_mem_mhz;      /* memory clock at idle; 0: stays at max (HBM) */
    unsigned int idle_video_mhz;    /* video clock at idle */
    unsigned int idle_w;            /* power at idle, W; 0: max(25 W, 0.1 x the enforced limit) */
};

/*
 * The row of the first needle that occurs in name as a word (not preceded
 * or followed by a letter or digit: "H20" is not "H200", "A30" not
 * "A3000"), or the default row (an A100-SXM4-80GB without GPM). Never NULL.
 */
const struct sim_board *sim_board_for(const char *name);

#endif

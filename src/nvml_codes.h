/*
 * nvml_codes.h: what an NVML return code means, without NVML.
 *
 * The code/text table is NVML_RETURN_CODES in nvml_abi.h; this module
 * answers questions about a code for those who must not call into the
 * driver (sinks, the log reader, the analysis): its text, its symbolic
 * name, and how a monitor classifies it (value unsupported here, device
 * lost). It depends on nothing but nvml_abi.h, so a log written on one
 * driver reads the same on any machine.
 */
#ifndef GPUMON_NVML_CODES_H
#define GPUMON_NVML_CODES_H

#include <stdbool.h>
#include "nvml_abi.h"

/* The text for code ("Insufficient Permissions"); "Unknown Error" for a
 * code the table lacks. Never NULL. */
const char *nvml_code_text(int code);
/* The code whose text is text, or NVML_ERROR_UNKNOWN (older logs stored
 * texts only). Also accepts nvidia's older wording "No permission". */
int nvml_code_from_text(const char *text);
/* True for a code the table knows. */
bool nvml_code_known(int code);
/* True for codes that mean "the device is gone" (15 lost, 16 reset needed). */
bool nvml_code_is_lost(int code);
/* True for codes that mean "this value is unavailable here" (3, 6, 13, 25). */
bool nvml_code_is_unsupported(int code);

#endif

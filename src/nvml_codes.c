/*
 * nvml_codes.c: NVML return codes as data (see nvml_codes.h). Every
 * function expands the one table, NVML_RETURN_CODES in nvml_abi.h.
 */
#include "nvml_codes.h"

#include <string.h>

const char *nvml_code_text(int code)
{
    switch (code) {
#define NVML_CODE_TEXT(name, value, text) case value: return text;
    NVML_RETURN_CODES(NVML_CODE_TEXT)
#undef NVML_CODE_TEXT
    default: return "Unknown Error";
    }
}

bool nvml_code_known(int code)
{
    switch (code) {
#define NVML_CODE_KNOWN(name, value, text) case value: return true;
    NVML_RETURN_CODES(NVML_CODE_KNOWN)
#undef NVML_CODE_KNOWN
    default: return false;
    }
}

int nvml_code_from_text(const char *text)
{
#define NVML_CODE_MATCH(name, value, t) if (!strcmp(text, t)) return value;
    NVML_RETURN_CODES(NVML_CODE_MATCH)
#undef NVML_CODE_MATCH
    if (!strcmp(text, "No permission"))
        return NVML_ERROR_NO_PERMISSION;
    return NVML_ERROR_UNKNOWN;
}

bool nvml_code_is_lost(int code)
{
    return code == NVML_ERROR_GPU_IS_LOST || code == NVML_ERROR_RESET_REQUIRED;
}

bool nvml_code_is_unsupported(int code)
{
    return code == NVML_ERROR_NOT_SUPPORTED || code == NVML_ERROR_NOT_FOUND ||
           code == NVML_ERROR_FUNCTION_NOT_FOUND || code == NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
}

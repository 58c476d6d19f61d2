/*
 * fuzz_fields.c: the comma-separated field lists: watch's --fields
 * (metric_parse_list) and query's --query-gpu / --query-compute-apps
 * (query_parse_gpu_fields, query_parse_app_fields).
 * Input: two bytes that size the caller's arrays (max, 0 to METRIC_COUNT + 19) and the
 * "bad" buffer (badlen, 1..64), then the list. Both are heap blocks of
 * exactly that size, so a write past max or badlen is an ASan report. The
 * contract is checked as well: a count within 0..max naming real rows and
 * no duplicates for --fields, or -1 with a NUL-terminated name in bad; the
 * query lists may also answer QUERY_TOO_MANY for more than max names.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz_util.h"
#include "metrics.h"
#include "query_fields.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *fuzz_fields_bad(size_t badlen)
{
    char *bad = malloc(badlen);
    if (!bad)
        abort();
    memset(bad, 'x', badlen);
    return bad;
}

static void fuzz_fields_check_bad(int n, const char *bad, size_t badlen, int max)
{
    if (n < -1 || n > max)
        abort();
    if (n == -1 && !memchr(bad, '\0', badlen))
        abort();
}

/* The query lists may also answer QUERY_TOO_MANY, for a list of more than max names. */
static void fuzz_fields_check_query(int n, const char *list, const char *bad, size_t badlen, int max)
{
    if (n == QUERY_TOO_MANY) {
        int fields = 1;
        for (const char *p = list; *p; p++)
            fields += *p == ',';
        if (fields <= max)
            abort();
        return;
    }
    fuzz_fields_check_bad(n, bad, badlen, max);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    int max = data[0] % (METRIC_COUNT + 20);
    size_t badlen = 1 + data[1] % 64;
    char *list = fuzz_util_str(data + 2, size - 2);

    enum metric_id *ids = malloc(sizeof *ids * (max ? max : 1));
    char *bad = fuzz_fields_bad(badlen);
    int n = metric_parse_list(list, ids, max, bad, badlen);
    fuzz_fields_check_bad(n, bad, badlen, max);
    for (int i = 0; i < n; i++) {
        if ((unsigned)ids[i] >= METRIC_COUNT || metric_table[ids[i]].id != ids[i])
            abort();
        for (int j = 0; j < i; j++)
            if (ids[j] == ids[i])
                abort();
    }
    free(ids);
    free(bad);

    const struct query_field **gf = malloc(sizeof *gf * (max ? max : 1));
    bad = fuzz_fields_bad(badlen);
    n = query_parse_gpu_fields(list, gf, max, bad, badlen);
    fuzz_fields_check_query(n, list, bad, badlen, max);
    for (int i = 0; i < n; i++)
        if (gf[i] < query_gpu_fields || gf[i] >= query_gpu_fields + query_gpu_nfields)
            abort();
    free(gf);
    free(bad);

    enum query_app_field *af = malloc(sizeof *af * (max ? max : 1));
    bad = fuzz_fields_bad(badlen);
    n = query_parse_app_fields(list, af, max, bad, badlen);
    fuzz_fields_check_query(n, list, bad, badlen, max);
    for (int i = 0; i < n; i++)
        if ((unsigned)af[i] >= QA_COUNT)
            abort();
    free(af);
    free(bad);
    free(list);
    return 0;
}

/*
 * feature_names.h — the names of the RB_FEAT_* bits, in one order, for every
 * output that prints what a table needs or a router supports: `list`
 * (text and --json), summary.json (written and read back), report.md and
 * the verdict.  One table, so a new feature bit (templates came in ABI 3)
 * is named everywhere or nowhere.
 */
#ifndef RB_BENCH_FEATURE_NAMES_H
#define RB_BENCH_FEATURE_NAMES_H

#include <stddef.h>

typedef struct rb_feature_name {
    unsigned bit;       /* RB_FEAT_* */
    const char *name;   /* token in list and summary.json: "params" */
    const char *plural; /* in prose: "catch-alls" */
} rb_feature_name;

/* The table-describing features, in output order (RB_FEAT_PEER is not one). */
extern const rb_feature_name rb_feature_names[];
extern const size_t rb_feature_count;

/* The names of the bits of F, each followed by SEP except the last, in
 * BUF (always terminated); NONE when F has none of them.  PLURAL picks the
 * prose names. */
void rb_features_join(unsigned f, const char *sep, const char *none, int plural, char *buf,
                      size_t cap);

/* The bits named by a SEP-free list of tokens joined by ',' (summary.json's
 * "params,templates"); unknown tokens are ignored (a newer writer). */
unsigned rb_features_parse(const char *list);

#endif

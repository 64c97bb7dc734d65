/*
 * rerender.c — a bundle rendered again from its data (rerender.h).
 */
#include "rerender.h"

#include "base_internal.h"
#include "file.h"
#include "report.h"

#include <stdio.h>
#include <string.h>

int rb_rerender_dir(const char *dir, rb_rerender *r, rb_error *err)
{
    memset(r, 0, sizeof *r);
    rb_bundle_init(&r->b);
    /* DIR is written again: first undo what a killed writer of DIR left
     * (a bundle moved aside comes back) */
    int rc = rb_dir_clean_leftovers(dir, err);
    if (rc == RB_OK) rc = rb_bundle_read_dir(dir, &r->b, err);
    if (rc < 0) return rc;
    char why[sizeof err->message];
    rc = rb_bundle_recheck_stats(&r->b, &r->rep, err);
    if (rc < 0) {
        snprintf(why, sizeof why, "%s", err->message);
        return rb__error(err, rc, RB_NO_OFFSET, "recomputing from trials.csv: %s", why);
    }
    if (r->rep.differ) return RB_RERENDER_STATS_DIFFER;
    bool agree;
    rc = rb_bundle_recheck_gate(&r->b, &r->recorded, &agree, err);
    if (rc < 0) {
        snprintf(why, sizeof why, "%s", err->message);
        return rb__error(err, rc, RB_NO_OFFSET, "deciding the gate again: %s", why);
    }
    if (!agree) return RB_RERENDER_GATE_DIFFERS;
    rc = rb_bundle_render_dir(dir, r->kept, sizeof r->kept, err);
    return rc < 0 ? rc : RB_RERENDER_DONE;
}

void rb_rerender_free(rb_rerender *r)
{
    rb_bundle_free(&r->b);
}

/* Both values, with as many digits as it takes to tell them apart. */
static void two_values(double x, double y, char *a, char *b, size_t cap)
{
    for (int digits = 6; digits <= 17; digits++) {
        snprintf(a, cap, "%.*g", digits, x);
        snprintf(b, cap, "%.*g", digits, y);
        if (strcmp(a, b) != 0) return;
    }
}

void rb_rerender_differences(const rb_rerender *r, rb_buf *out)
{
    const rb_bundle_recheck *rep = &r->rep;
    for (size_t i = 0; i < rep->ndifferences; i++) {
        const rb_bundle_difference *d = &rep->differences[i];
        char a[40], c[40];
        two_values(d->stored, d->recomputed, a, c, sizeof a);
        rb_buf_printf(out, "  %s: %s is %s in summary.json, %s from trials.csv\n", d->where,
                      d->what, a, c);
    }
    if (rep->differ > rep->ndifferences)
        rb_buf_printf(out, "  ... and %zu more\n", rep->differ - rep->ndifferences);
}

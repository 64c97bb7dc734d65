/*
 * changepoint.c — steps in a series across commits, and the unpaired ratio
 * of two sessions (changepoint.h).
 */
#include "changepoint.h"

#include "stats.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

static int sign(double d)
{
    return (d > 0) - (d < 0);
}

int rb_changepoint_pettitt(const double *x, size_t n, size_t *at, double *p)
{
    if (!x || n < 2 || !at || !p) return RB_EINVAL;
    /* U_t = U_{t-1} + sum_j sign(x[t] - x[j]), over the split after t */
    double u = 0, best = -1;
    size_t best_at = 1;
    for (size_t t = 0; t + 1 < n; t++) {
        long s = 0;
        for (size_t j = 0; j < n; j++) s += sign(x[t] - x[j]);
        u += (double)s;
        if (fabs(u) > best) best = fabs(u), best_at = t + 1;
    }
    double nn = (double)n;
    double pv = 2.0 * exp(-6.0 * best * best / (nn * nn * nn + nn * nn));
    *at = best_at;
    *p = pv > 1.0 ? 1.0 : pv;
    return RB_OK;
}

typedef struct found {
    size_t *starts, cap, count;
} found;

static void add_start(found *f, size_t i)
{
    if (f->count < f->cap) {
        /* keep them sorted: insertion, the list is short */
        size_t k = f->count;
        while (k > 0 && f->starts[k - 1] > i) {
            f->starts[k] = f->starts[k - 1];
            k--;
        }
        f->starts[k] = i;
    }
    f->count++;
}

/* Binary segmentation of x[lo, hi). */
static void segment(const double *x, size_t lo, size_t hi, double alpha, size_t min_segment,
                    found *f, int depth)
{
    if (hi - lo < 2 * min_segment || depth > 64) return;
    size_t at;
    double p;
    if (rb_changepoint_pettitt(x + lo, hi - lo, &at, &p) < 0 || !(p < alpha)) return;
    size_t cut = lo + at;
    if (cut - lo < min_segment || hi - cut < min_segment) return;
    add_start(f, cut);
    segment(x, lo, cut, alpha, min_segment, f, depth + 1);
    segment(x, cut, hi, alpha, min_segment, f, depth + 1);
}

int rb_changepoint_find(const double *x, size_t n, bool exact, double alpha, size_t min_segment,
                        size_t *starts, size_t cap, size_t *count)
{
    if ((!x && n) || (!starts && cap) || !count || min_segment == 0 ||
        !(exact || (alpha > 0 && alpha < 1)))
        return RB_EINVAL;
    found f = {starts, cap, 0};
    if (exact) {
        for (size_t i = 1; i < n; i++)
            if (x[i] != x[i - 1]) add_start(&f, i);
    } else {
        segment(x, 0, n, alpha, min_segment, &f, 0);
    }
    *count = f.count;
    return RB_OK;
}

static int cmp_double(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return (a > b) - (a < b);
}

int rb_changepoint_unpaired(const double *a, size_t na, const double *b, size_t nb, double level,
                            rb_unpaired_result *out)
{
    if (!a || !b || !out || na == 0 || nb == 0 || !(level > 0 && level < 1)) return RB_EINVAL;
    if ((uint64_t)na * nb > (1u << 24)) return RB_EINVAL;
    for (size_t i = 0; i < na; i++)
        if (!(a[i] > 0 && isfinite(a[i]))) return RB_EINVAL;
    for (size_t j = 0; j < nb; j++)
        if (!(b[j] > 0 && isfinite(b[j]))) return RB_EINVAL;
    size_t m = na * nb;
    double *d = malloc(m * sizeof *d);
    if (!d) return RB_ENOMEM;
    for (size_t i = 0; i < na; i++)
        for (size_t j = 0; j < nb; j++) d[i * nb + j] = log(a[i]) - log(b[j]);
    qsort(d, m, sizeof *d, cmp_double);
    rb_unpaired_result r = {.na = na, .nb = nb, .level = level, .mde = INFINITY};
    r.ratio = exp(m % 2 ? d[m / 2] : 0.5 * (d[m / 2 - 1] + d[m / 2]));
    r.too_few = na < 3 || nb < 3;
    r.lo = r.hi = r.ratio;
    if (!r.too_few) {
        double z = rb_stats_normal_quantile((1.0 + level) / 2.0);
        double mn = (double)m;
        double k = floor(mn / 2.0 - z * sqrt(mn * (double)(na + nb + 1) / 12.0));
        if (k < 0) {
            r.too_few = true; /* the interval would be wider than every difference */
        } else {
            size_t kk = (size_t)k;
            r.lo = exp(d[kk]);
            r.hi = exp(d[m - 1 - kk]);
            r.excludes_one = r.lo > 1.0 || r.hi < 1.0;
            double se = rb_stats_log_se(r.lo, r.hi, level);
            if (isfinite(se)) r.mde = rb_stats_mde(se, level);
        }
    }
    free(d);
    *out = r;
    return RB_OK;
}

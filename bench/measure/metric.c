/*
 * metric.c — the names of the metrics (metric.h).
 */
#include "metric.h"

#include <string.h>

typedef struct metric_info {
    const char *name, *unit, *key;
    bool exact;
} metric_info;

static const metric_info metrics[RB_METRIC_COUNT] = {
    [RB_METRIC_TIME] = {"time", "ns", "ns", false},
    [RB_METRIC_INSTRUCTIONS] = {"instructions", "instructions", "instructions", true},
    [RB_METRIC_CYCLES_EST] = {"cycles-est", "est. cycles", "cycles_est", true},
    [RB_METRIC_HW_INSTRUCTIONS] = {"hw-instructions", "hw instructions", "hw_instructions", false},
};

static const metric_info *info(int metric)
{
    return metric >= 0 && metric < RB_METRIC_COUNT ? &metrics[metric] : &metrics[0];
}

int rb_metric_parse(const char *name)
{
    for (int m = 0; m < RB_METRIC_COUNT; m++)
        if (strcmp(name, metrics[m].name) == 0) return m;
    return -1;
}

const char *rb_metric_name(int metric)
{
    return info(metric)->name;
}

const char *rb_metric_unit(int metric)
{
    return info(metric)->unit;
}

const char *rb_metric_key(int metric)
{
    return info(metric)->key;
}

bool rb_metric_exact(int metric)
{
    return metric >= 0 && metric < RB_METRIC_COUNT && info(metric)->exact;
}

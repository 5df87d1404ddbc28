/* The monotonic clock the time limit, the phase counts and the checkpoints read. */
#ifndef FCS_CLOCK_H
#define FCS_CLOCK_H

#include <time.h>

static inline double fcs_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

#endif

/* The threads a running layered proof is offered (offer.h). */
#include "offer.h"

#include <stdio.h>

#include "../clock.h"
#include "../search.h"

void offer_init(proof_offer *o, const char *path, double every, double now)
{
    o->path = path;
    o->every = every;
    o->next = now + every;
}

int offer_differs(proof_offer *o, int n)
{
    FILE *f;
    int offered = 0;
    double now;
    if (!o->path || (now = fcs_now_s()) < o->next)
        return 0;
    o->next = now + o->every;
    if (!(f = fopen(o->path, "r")))
        return 0;
    if (fscanf(f, "%d", &offered) != 1)
        offered = 0;
    fclose(f);
    return offered >= 1 && offered <= FCS_MAX_THREADS && offered != n;
}

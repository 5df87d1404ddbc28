/* The threads of one layered proof (team.h). */
#include "team.h"

#include <stdlib.h>

int team_init(proof_team *t, int n)
{
    uint64_t slots = 1;
    int i;
    memset(t, 0, sizeof(*t));
    t->result.least = t->brought.least = UINT64_MAX;
    if (pthread_mutex_init(&t->lock, NULL) != 0)
        return 0;
    if (pthread_cond_init(&t->met, NULL) != 0) {
        pthread_mutex_destroy(&t->lock);
        return 0;
    }
    t->n = n; /* from here on, team_free undoes what was made */
    if (n == 1)
        return 1;
    while (slots * 2 * (uint64_t)(n - 1) <= PROOF_RINGS) /* a power of two */
        slots *= 2;
    if (!(t->rings = calloc((size_t)n * (size_t)n, sizeof(proof_ring))))
        return 0;
    for (i = 0; i < n * n; i++) {
        t->rings[i].mask = slots - 1;
        if (i / n != i % n && !(t->rings[i].slots = malloc(sizeof(proof_child) * slots)))
            return 0;
    }
    return 1;
}

void team_free(proof_team *t)
{
    int i;
    for (i = 0; t->rings && i < t->n * t->n; i++)
        free(t->rings[i].slots);
    free(t->rings);
    pthread_cond_destroy(&t->met);
    pthread_mutex_destroy(&t->lock);
    memset(t, 0, sizeof(*t));
}

void team_stop(proof_team *t, int limit)
{
    pthread_mutex_lock(&t->lock);
    if (!atomic_load(&t->stop)) {
        t->limit = limit;
        atomic_store(&t->stop, 1);
    }
    pthread_cond_broadcast(&t->met);
    pthread_mutex_unlock(&t->lock);
}

int team_meet(proof_team *t, uint64_t sum, uint64_t least, int (*last)(void *, const team_totals *), void *arg,
              team_totals *out)
{
    unsigned meeting;
    int ok = 1;
    pthread_mutex_lock(&t->lock);
    meeting = t->meeting;
    t->brought.sum += sum;
    if (least < t->brought.least)
        t->brought.least = least;
    if (++t->arrived == t->n) {
        team_totals totals = t->brought;
        t->brought.sum = 0;
        t->brought.least = UINT64_MAX;
        t->arrived = 0;
        if (last && !atomic_load(&t->stop)) { /* the others wait: nothing moves under it */
            pthread_mutex_unlock(&t->lock);
            ok = last(arg, &totals);
            pthread_mutex_lock(&t->lock);
        }
        t->result = totals;
        t->meeting++;
        pthread_cond_broadcast(&t->met);
    } else {
        while (t->meeting == meeting && !atomic_load(&t->stop))
            pthread_cond_wait(&t->met, &t->lock);
    }
    *out = t->result;
    ok = ok && !atomic_load(&t->stop);
    pthread_mutex_unlock(&t->lock);
    return ok;
}

/* The two weight sets (tuning.h). */
#include "score.h"

#define GREEDY_VALUE(name, greedy, complete) greedy,
#define COMPLETE_VALUE(name, greedy, complete) complete,
const weights GREEDY_WEIGHTS = {WEIGHTS(GREEDY_VALUE)};
const weights COMPLETE_WEIGHTS = {WEIGHTS(COMPLETE_VALUE)};

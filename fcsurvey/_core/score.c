/* The weight sets (tuning.h), and the two in force (score.h). */
#include "score.h"

#define GREEDY_VALUE(name, greedy, complete, beam) greedy,
#define COMPLETE_VALUE(name, greedy, complete, beam) complete,
#define BEAM_VALUE(name, greedy, complete, beam) beam,
const weights TUNED_GREEDY_WEIGHTS = {WEIGHTS(GREEDY_VALUE)};
const weights TUNED_COMPLETE_WEIGHTS = {WEIGHTS(COMPLETE_VALUE)};
weights GREEDY_WEIGHTS = {WEIGHTS(GREEDY_VALUE)};
weights COMPLETE_WEIGHTS = {WEIGHTS(COMPLETE_VALUE)};
const weights BEAM_WEIGHTS = {WEIGHTS(BEAM_VALUE)};

/* Microsoft / FreeCell Pro shuffle.  Python reference: fcsurvey/deals.py. */
#ifndef FCS_DEAL_H
#define FCS_DEAL_H

#include <stdint.h>

#define FCS_DECK_SIZE 52
#define FCS_MAX_DEAL 8589934591ULL

/* Write the 52 cards (0..51, rank_index * 4 + suit, suits CDHS) in the order
   they are dealt.  Returns 0, or -1 when number is outside 1..FCS_MAX_DEAL. */
int fcs_shuffled_deck(uint64_t number, uint8_t out[FCS_DECK_SIZE]);

#endif

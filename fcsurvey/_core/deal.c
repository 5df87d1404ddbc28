#include "deal.h"

#define MS_LIMIT (1ULL << 31)
#define LONG_LIMIT (1ULL << 32)

int fcs_shuffled_deck(uint64_t number, uint8_t out[FCS_DECK_SIZE])
{
    uint8_t deck[FCS_DECK_SIZE];
    uint32_t seed;
    int i, left;

    if (number < 1 || number > FCS_MAX_DEAL)
        return -1;
    seed = (uint32_t)(number < LONG_LIMIT ? number : number - LONG_LIMIT);
    for (i = 0; i < FCS_DECK_SIZE; i++)
        deck[i] = (uint8_t)i;
    for (i = 0, left = FCS_DECK_SIZE; left > 0; i++, left--) {
        uint32_t draw;
        seed = seed * 214013u + 2531011u;
        if (number < MS_LIMIT)
            draw = (seed >> 16) & 0x7fffu;
        else if (number < LONG_LIMIT)
            draw = ((seed >> 16) & 0x7fffu) | 0x8000u;
        else
            draw = ((seed >> 16) & 0xffffu) + 1u;
        draw %= (uint32_t)left;
        out[i] = deck[draw];
        deck[draw] = deck[left - 1];
    }
    return 0;
}

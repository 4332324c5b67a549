/* model: pieces of finalize shared between its files:
 *   finalize.c         the driver: order of events per lane, final order, counts;
 *   finalize_derive.c  instants and async events made into slices on their tracks;
 *   finalize_replay.c  one lane's events through Perfetto's slice tracker. */
#ifndef STS_MODEL_FINALIZE_IMPL_H
#define STS_MODEL_FINALIZE_IMPL_H

#include "model/finalize.h"

typedef STS_VEC(uint32_t) fin_u32vec;

/* A token of a lane's event sequence: a slice index, or an E index with this bit. */
#define FIN_END 0x80000000u

/* What a lane's own track is (thread lanes also get overflow tracks). */
typedef struct fin_track0 {
    uint32_t kind;  /* sts_track_kind */
    uint32_t index; /* async: Perfetto's track_compressor_idx */
    uint32_t name;  /* async: the track's name */
} fin_track0;

sts_status sts_fin_nomem(const sts_timeline *tl, sts_error *err);

/* Makes the slices of instants (zero-duration, on their thread's track or on a
 * process or global instants lane) and of async events (b opens, e closes, n is an
 * instant, on async lanes chosen as Perfetto's track compressor does), creating the
 * lanes they need. *t0 receives every lane's own-track description (tl->lanes.n
 * entries after the call; free it). */
sts_status sts_fin_derive(sts_timeline *tl, fin_track0 **t0, sts_error *err);

/* The order key of Perfetto's trace sorter for a token (see sts_tl_sorter): ties of ts
 * break on this, then on the event's sequence number. */
int64_t sts_fin_sort_class(const sts_timeline *tl, uint32_t tok);

static inline int64_t fin_tok_ts(const sts_timeline *tl, uint32_t tok)
{
    return (tok & FIN_END) ? tl->ends.v[tok & ~FIN_END].ts : tl->slices.v[tok].ts;
}

static inline uint32_t fin_tok_seq(const sts_timeline *tl, uint32_t tok)
{
    return (tok & FIN_END) ? tl->ends.v[tok & ~FIN_END].seq : tl->slices.v[tok].parent; /* raw: parent = seq */
}

/* One lane's replay. The caller gives the lane's tokens in the importer's order; the
 * replay assigns each slice its final position (from *pos on), track, depth, parent
 * (a final position) and duration, writes order[position] = raw index, and keeps the
 * lane's tracks, overlaps and counts until sts_fin_replay_commit() adds them to the
 * timeline. -1 when memory is exhausted.
 *
 * A replay touches only its lanes' slices, their positions in order and their lane
 * records, so replays of disjoint lanes (with disjoint position ranges) may run on
 * threads side by side; their commits then go in lane order. */
typedef struct fin_replay fin_replay;

/* What the replay learns of a lane: whether it had a B (only then can Perfetto's table
 * put a child outside its parent: see finalize.c, contain()), and the span of its
 * complete slices. */
typedef struct fin_lane_out {
    int opened;
    int64_t lo, hi; /* lo > hi: no slice */
} fin_lane_out;

/* A replay whose first track is numbered track_base (the tracks of the lanes before
 * its first, when known; else a guess the caller corrects afterwards). NULL when
 * memory is exhausted; free with sts_fin_replay_free(). */
fin_replay *sts_fin_replay_new(sts_timeline *tl, uint32_t *order, uint32_t track_base);
int sts_fin_replay_lane(fin_replay *r, uint32_t lane, const fin_track0 *t0, const uint32_t *tok, size_t n,
                        uint32_t *pos, fin_lane_out *out);
/* The tracks the replay has made so far. */
uint32_t sts_fin_replay_tracks(const fin_replay *r);
/* Appends the replay's tracks and overlaps to the timeline's and adds its counts to
 * info: 0, or -1 when memory is exhausted. */
int sts_fin_replay_commit(fin_replay *r);
void sts_fin_replay_free(fin_replay *r);
/* Whether any slice's final position differs from its raw index (else no permutation). */
int sts_fin_replay_moved(const fin_replay *r);

/* Moves slice order[k] to position k for every k. The swap version tracks where each
 * slice went (8 bytes per slice: taken from `scratch`, an array of `nscratch` the caller
 * has done with, as far as it goes, else allocated; -1 when they cannot be had); the
 * cycle version needs no memory and consumes order. Both give the same result. */
int sts_fin_permute_swaps(sts_slice *s, const uint32_t *order, size_t n, uint32_t *scratch, size_t nscratch);
void sts_fin_permute_cycles(sts_slice *s, uint32_t *order, size_t n);

#endif

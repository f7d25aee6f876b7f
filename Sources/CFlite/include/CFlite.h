#pragma once
// Debian's flite (flite1-dev): the synthesiser and its English lexicon, opened when a graph
// first speaks or a vocabulary word needs flite's pronunciation; its voices are opened then
// too, one library each (FliteVoice). A run that does neither maps none of it. Its functions
// are called through ag_flite_load()'s table, whose entries have the header's own types.
#include <flite/flite.h>

// The CMU lexicon with its letter-to-sound rules (libflite_cmulex).
cst_lexicon *_Nullable cmu_lex_init(void);

#define AG_FLITE_FUNCTIONS(X) X(flite_init) X(flite_text_to_wave) X(delete_wave) X(feat_set_float) \
    X(lex_lookup) X(in_lex) X(delete_val) X(val_string) X(val_car) X(val_cdr)

#define AG_FLITE_FIELD(f) __typeof__(f) *_Nonnull f;
typedef struct {
    AG_FLITE_FUNCTIONS(AG_FLITE_FIELD)
    __typeof__(cmu_lex_init) *_Nonnull cmu_lex_init;
} ag_flite_api;

/// Opens libflite.so.1 and libflite_cmulex.so.1 and finds their functions, once
/// (thread-safe): the table, or NULL with `*failure` saying why (dlerror's words).
const ag_flite_api *_Nullable ag_flite_load(const char *_Nullable *_Nonnull failure);

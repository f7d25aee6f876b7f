#pragma once
// Debian's flite1-dev: the synthesiser and its English lexicon. The voices it ships are
// loaded when a graph speaks (`FliteVoice`), not linked: their libraries' relocated data is
// about 5 MB of every process's memory otherwise.
#include <flite/flite.h>
// The CMU lexicon with its letter-to-sound rules (libflite_cmulex).
cst_lexicon *cmu_lex_init(void);

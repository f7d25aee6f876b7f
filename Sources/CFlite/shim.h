#pragma once
// Debian's flite1-dev: the synthesiser and the voices it ships. The voice libraries
// declare their registration functions in no header.
#include <flite/flite.h>

cst_voice *register_cmu_us_rms(const char *voxdir);
cst_voice *register_cmu_us_slt(const char *voxdir);
cst_voice *register_cmu_us_awb(const char *voxdir);
cst_voice *register_cmu_us_kal16(const char *voxdir);
cst_voice *register_cmu_us_kal(const char *voxdir);
// The CMU lexicon with its letter-to-sound rules (libflite_cmulex).
cst_lexicon *cmu_lex_init(void);

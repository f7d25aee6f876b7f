#pragma once
// PocketSphinx 5prealpha and SphinxBase, as Debian installs them. What PocketSphinx's API
// lacks (log capture, a side cepstral-mean meter, a cut vocabulary) is C code of its own in
// the CPocketSphinxSupport target.
#include <pocketsphinx.h>
#include <sphinxbase/err.h>
#include <sphinxbase/cmd_ln.h>
#include <sphinxbase/logmath.h>
#include <sphinxbase/ngram_model.h>
#include <sphinxbase/jsgf.h>

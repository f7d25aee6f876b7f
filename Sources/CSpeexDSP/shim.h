// speexdsp (Debian's libspeexdsp-dev 1.2.1): MDF echo canceller and its preprocessor.
#include <speex/speex_echo.h>
#include <speex/speex_preprocess.h>

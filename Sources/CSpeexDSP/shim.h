#ifndef PARLEY_CSPEEXDSP_SHIM_H
#define PARLEY_CSPEEXDSP_SHIM_H
#include <speex/speex_resampler.h>
#endif

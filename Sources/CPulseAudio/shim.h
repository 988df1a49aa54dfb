#ifndef PARLEY_CPULSEAUDIO_SHIM_H
#define PARLEY_CPULSEAUDIO_SHIM_H
#include <pulse/simple.h>
#include <pulse/error.h>
#endif

#ifndef PARLEY_CLAME_SHIM_H
#define PARLEY_CLAME_SHIM_H
/* LAME's MP3 encoder (libmp3lame); Debian's libmp3lame-dev, Homebrew's lame. */
#include <lame/lame.h>
#endif

// The system zlib, for streaming compression of whole stores (SyncCore's ZlibStream). zlib's
// deflateInit and inflateInit are macros, which Swift does not import: the inline functions below
// stand in for them.
#ifndef CZLIB_SHIM_H
#define CZLIB_SHIM_H

#include <zlib.h>

/// deflateInit(stream, level): a zlib-format (RFC 1950) stream.
static inline int czlib_deflate_init(z_streamp stream, int level) {
    return deflateInit(stream, level);
}

/// inflateInit(stream): reads a zlib-format (RFC 1950) stream.
static inline int czlib_inflate_init(z_streamp stream) {
    return inflateInit(stream);
}

#endif

// The system zlib, for streaming compression of whole stores (SyncCore's ZlibStream). zlib's
// deflateInit2 and inflateInit are macros, which Swift does not import: the inline functions below
// stand in for them.
#ifndef CZLIB_SHIM_H
#define CZLIB_SHIM_H

#include <zlib.h>

/// deflateInit2(stream, level, …): a raw deflate (RFC 1951) stream with zlib's default 32 KiB
/// window and memory level, for the blocks of a parallel compression.
static inline int czlib_raw_deflate_init(z_streamp stream, int level) {
    return deflateInit2(stream, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY);
}

/// inflateInit(stream): reads a zlib-format (RFC 1950) stream.
static inline int czlib_inflate_init(z_streamp stream) {
    return inflateInit(stream);
}

#endif

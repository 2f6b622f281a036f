// The system libzstd, for streaming Zstandard (RFC 8878) compression of whole stores (SyncCore's
// ZstdStream). Its streaming API is plain functions and enums, which Swift imports as they are.
#ifndef CZSTD_SHIM_H
#define CZSTD_SHIM_H

#include <zstd.h>

#endif

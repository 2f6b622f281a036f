// The libssh2 C API for SFTPRemote. libssh2's function-like macros (libssh2_session_init,
// libssh2_sftp_open, LIBSSH2_SFTP_S_ISDIR, ...) are not imported by Swift: SFTPRemote calls the
// explicit `_ex` functions instead, and the few inline helpers below.
#ifndef CLIBSSH2_SHIM_H
#define CLIBSSH2_SHIM_H

#include <libssh2.h>
#include <libssh2_sftp.h>

/// libssh2_session_init() is a macro: the default allocators, no abstract pointer.
static inline LIBSSH2_SESSION *clibssh2_session_init(void) {
    return libssh2_session_init_ex(NULL, NULL, NULL, NULL);
}

/// The libssh2 version this program runs with, as 0xMMmmpp (libssh2_version(0) gives the text).
static inline int clibssh2_runtime_version_number(void) {
    return LIBSSH2_VERSION_NUM;
}

#endif

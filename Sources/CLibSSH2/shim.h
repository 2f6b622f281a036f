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

/// What the server said when it ended the connection with SSH_MSG_DISCONNECT, recorded by
/// clibssh2_record_disconnects: how the library tells a server that closed the connection on
/// purpose (with its reason) from one that merely dropped it, since libssh2 1.10 reports both,
/// during authentication, as a refused key.
typedef struct {
    int received;
    int reason;
    char message[256];
} clibssh2_disconnect_record;

static void clibssh2_disconnect_callback(LIBSSH2_SESSION *session, int reason, const char *message, int message_length,
                                         const char *language, int language_length, void **abstract) {
    (void)session;
    (void)language;
    (void)language_length;
    clibssh2_disconnect_record *record = abstract ? (clibssh2_disconnect_record *)*abstract : NULL;
    if (!record) return;
    record->received = 1;
    record->reason = reason;
    int length = 0;
    if (message && message_length > 0) {
        length = message_length < (int)sizeof(record->message) - 1 ? message_length : (int)sizeof(record->message) - 1;
        for (int i = 0; i < length; i++) record->message[i] = message[i];
    }
    record->message[length] = 0;
}

/// Makes `session` record a server's SSH_MSG_DISCONNECT in `record` (which must outlive the
/// session): the record becomes the session's abstract pointer, which libssh2 passes to callbacks.
static inline void clibssh2_record_disconnects(LIBSSH2_SESSION *session, clibssh2_disconnect_record *record) {
    *libssh2_session_abstract(session) = record;
    libssh2_session_callback_set(session, LIBSSH2_CALLBACK_DISCONNECT, (void *)clibssh2_disconnect_callback);
}

#endif

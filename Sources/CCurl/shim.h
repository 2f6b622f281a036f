// Typed wrappers around libcurl's variadic entry points, which Swift cannot call, and values of
// libcurl's cast macros, which Swift does not import, and the one socket callback. Nothing else:
// the transport is in Swift.
#ifndef CCURL_SHIM_H
#define CCURL_SHIM_H

#include <curl/curl.h>
#include <fcntl.h>
#include <sys/socket.h>

static inline CURLcode ccurl_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode ccurl_setopt_off(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode ccurl_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode ccurl_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode ccurl_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode ccurl_setopt_write_function(CURL *handle, curl_write_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, callback);
}
static inline CURLcode ccurl_setopt_header_function(CURL *handle, curl_write_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_HEADERFUNCTION, callback);
}
static inline CURLcode ccurl_setopt_read_function(CURL *handle, curl_read_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_READFUNCTION, callback);
}
static inline CURLcode ccurl_setopt_seek_function(CURL *handle, curl_seek_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_SEEKFUNCTION, callback);
}
static inline CURLcode ccurl_setopt_xferinfo_function(CURL *handle, curl_xferinfo_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, callback);
}

// libcurl's socket opener, with the socket close-on-exec: libcurl opens its sockets without it,
// so a process the application starts would inherit every open connection and keep it open after
// libcurl closed it (the server, or a proxy cutting it, never sees the end).
static curl_socket_t ccurl_open_socket_cloexec(void *clientp, curlsocktype purpose, struct curl_sockaddr *address) {
    (void)clientp;
    (void)purpose;
#ifdef SOCK_CLOEXEC
    return socket(address->family, address->socktype | SOCK_CLOEXEC, address->protocol);
#else
    curl_socket_t fd = socket(address->family, address->socktype, address->protocol);
    if (fd != CURL_SOCKET_BAD) fcntl(fd, F_SETFD, FD_CLOEXEC);
    return fd;
#endif
}
static inline CURLcode ccurl_setopt_close_on_exec_sockets(CURL *handle) {
    return curl_easy_setopt(handle, CURLOPT_OPENSOCKETFUNCTION, ccurl_open_socket_cloexec);
}

static inline CURLcode ccurl_getinfo_long(CURL *handle, CURLINFO info, long *out) {
    return curl_easy_getinfo(handle, info, out);
}
static inline CURLcode ccurl_getinfo_off(CURL *handle, CURLINFO info, curl_off_t *out) {
    return curl_easy_getinfo(handle, info, out);
}
static inline CURLcode ccurl_getinfo_string(CURL *handle, CURLINFO info, char **out) {
    return curl_easy_getinfo(handle, info, out);
}

// CURLAUTH_* are cast macros ("structure not supported" in Swift).
static inline long ccurl_auth_basic(void) { return (long)CURLAUTH_BASIC; }
static inline long ccurl_auth_digest(void) { return (long)CURLAUTH_DIGEST; }
static inline long ccurl_auth_any(void) { return (long)CURLAUTH_ANY; }

// Return values of the read and seek callbacks.
static inline size_t ccurl_readfunc_abort(void) { return CURL_READFUNC_ABORT; }
static inline int ccurl_seekfunc_ok(void) { return CURL_SEEKFUNC_OK; }
static inline int ccurl_seekfunc_fail(void) { return CURL_SEEKFUNC_FAIL; }

#endif

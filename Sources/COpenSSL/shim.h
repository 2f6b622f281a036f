// The system's OpenSSL libcrypto (3.0 or later), which libcurl and libssh2 already bring into the
// process, for CryptoPrimitives: digests, HMAC, AES-256-GCM and scrypt through its EVP API.
#ifndef COPENSSL_SHIM_H
#define COPENSSL_SHIM_H

#include <openssl/evp.h>
#include <openssl/err.h>
#include <openssl/hmac.h>

// The GCM controls are macros defined through other macros, which Swift does not import.
static inline int copenssl_gcm_get_tag(void) { return EVP_CTRL_GCM_GET_TAG; }
static inline int copenssl_gcm_set_tag(void) { return EVP_CTRL_GCM_SET_TAG; }
static inline int copenssl_gcm_set_iv_length(void) { return EVP_CTRL_GCM_SET_IVLEN; }

#endif

import CCurl
import RemoteProtocol

extension RemoteStoreError {
    /// The error for a transfer that libcurl could not complete (no usable HTTP response).
    ///
    /// Classified by the question "would a retry help?": a connection that could not be made, or
    /// that dropped, was reset or was closed in any phase — TCP connect, TLS handshake, the request,
    /// the response (a body that ends before its Content-Length is a connection the server closed
    /// mid-transfer) — is `unavailable`, and one that stalled is `timedOut`, both retryable. A
    /// garbled reply is `invalidResponse`; an untrusted TLS certificate is `hostKeyUnknown`; a
    /// refused login is `authenticationFailed`; anything else is `io`. The libcurl code and text
    /// are kept as ``underlying``.
    package static func transport(_ code: CURLcode, detail: String, serverKind: String) -> RemoteStoreError {
        let underlying = CurlError(code, detail: detail, serverKind: serverKind)
        let (errorCode, message) = classification(of: code, server: "the \(serverKind) server", kind: serverKind)
        return RemoteStoreError(errorCode, message: "\(message) (\(underlying.message))", underlying: underlying)
    }

    private static func classification(of code: CURLcode, server: String, kind: String) -> (Code, String) {
        switch code {
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY, CURLE_COULDNT_CONNECT:
            return (.unavailable, "\(server) could not be reached")
        case CURLE_SSL_CONNECT_ERROR:
            return (.unavailable, "the connection to \(server) failed during the TLS handshake")
        case CURLE_SEND_ERROR, CURLE_RECV_ERROR, CURLE_GOT_NOTHING, CURLE_HTTP2, CURLE_HTTP2_STREAM, CURLE_AGAIN:
            return (.unavailable, "the connection to \(server) dropped")
        case CURLE_PARTIAL_FILE:
            return (.unavailable, "the connection to \(server) dropped before the whole response arrived")
        case CURLE_OPERATION_TIMEDOUT:
            return (.timedOut, "\(server) did not answer in time")
        case CURLE_WEIRD_SERVER_REPLY, CURLE_BAD_CONTENT_ENCODING, CURLE_TOO_MANY_REDIRECTS:
            return (.invalidResponse, "\(server)'s reply is not valid HTTP")
        case CURLE_PEER_FAILED_VERIFICATION:
            return (.hostKeyUnknown, "the server's TLS certificate is not trusted (see the ca-file setting)")
        case CURLE_SSL_CACERT_BADFILE, CURLE_SSL_CERTPROBLEM:
            return (.localFile, "the configured certificate file cannot be used")
        case CURLE_LOGIN_DENIED:
            return (.authenticationFailed, "\(server) refused the credentials")
        case CURLE_UNSUPPORTED_PROTOCOL, CURLE_URL_MALFORMAT:
            return (.unsupported, "the \(kind) URL cannot be used")
        case CURLE_SEND_FAIL_REWIND:
            return (.io, "the upload could not be restarted for an authentication round-trip")
        default:
            return (.io, "the \(kind) transfer failed")
        }
    }
}

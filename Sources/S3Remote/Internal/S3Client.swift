import CurlTransport
import Foundation
import RemoteProtocol
import RemoteTransportSupport
import Synchronization

/// Sends signed requests to one bucket through a pool of libcurl connections (each owned by an
/// actor on a thread of its own, see `CurlConnection`).
///
/// - **Signing**: every attempt is signed with AWS Signature V4 when a connection is free to send
///   it (``S3Signer``),
///   with `x-amz-content-sha256: UNSIGNED-PAYLOAD` (a streamed body is not hashed first; TLS
///   protects it in transit) and `x-amz-security-token` for temporary credentials. Keys and
///   query strings are put in the URL in canonical form, which is what is signed.
/// - **Retries**: idempotent requests that failed in a retryable way (dropped connection,
///   timeout, 500, 503 SlowDown, RequestTimeout) are sent again with the configured back-off.
/// - **Cancellation**: cancelling the calling task aborts a running transfer.
final class S3Client: Sendable {
    let settings: ResolvedS3Settings
    let key: S3Key
    let retryPolicy: RetryPolicy
    private let pool: CurlConnectionPool
    private let bucketURL: String
    private let fixedHeaders: [String]
    private let signer: S3Signer
    private let sentRequests = Atomic<Int>(0)
    private let receivedBytes = Atomic<Int>(0)

    init(settings: ResolvedS3Settings, configuration: S3RemoteStore.Configuration) {
        self.settings = settings
        key = S3Key(prefix: settings.prefix)
        retryPolicy = configuration.retryPolicy
        bucketURL = settings.bucketURL
        var options = CurlOptions()
        options.serverKind = "S3"
        options.caFile = configuration.caFile
        options.connectTimeout = configuration.connectTimeout
        options.lowSpeedTime = configuration.lowSpeedTime
        pool = CurlConnectionPool(options: options, capacity: max(1, configuration.connectionCount))
        var headers = ["x-amz-content-sha256: UNSIGNED-PAYLOAD"]
        // An empty token (`AWS_SESSION_TOKEN=` left set) is no token, as for the AWS CLI.
        if let token = settings.credentials.sessionToken, !token.isEmpty { headers.append("x-amz-security-token: \(token)") }
        fixedHeaders = headers
        signer = S3Signer(credentials: settings.credentials, region: settings.region)
    }

    /// How many HTTP requests have been sent (every attempt and retry counts).
    var requestCount: Int { sentRequests.load(ordering: .relaxed) }

    /// How many bytes of response bodies have been received (every attempt counts).
    var receivedByteCount: Int { receivedBytes.load(ordering: .relaxed) }

    /// The URL of `objectKey` (empty for the bucket itself) with `query`.
    func url(_ objectKey: String, query: [(String, String)] = []) -> String {
        let path = objectKey.isEmpty ? "/" : "/" + S3Key.uriEncode(objectKey, keepingSlashes: true)
        let queryText = S3Key.canonicalQuery(query)
        return bucketURL + path + (queryText.isEmpty ? "" : "?" + queryText)
    }

    /// The `x-amz-copy-source` value naming `objectKey` of this bucket.
    func copySource(_ objectKey: String) -> String {
        "/" + S3Key.uriEncode(settings.bucket, keepingSlashes: false) + "/" + S3Key.uriEncode(objectKey, keepingSlashes: true)
    }

    /// Sends a request and returns the response if its status is in `accepting`.
    ///
    /// A 200 answer whose body is an S3 `<Error>` document (CopyObject and
    /// CompleteMultipartUpload can answer so) is an error too, when `errorBodyMayHide200` is set.
    /// - Throws: `CancellationError`, or ``RemoteStoreError`` (see
    ///   `RemoteStoreError.s3(_:method:path:bucket:)` and `RemoteStoreError.transport`).
    func send(
        _ method: String,
        _ objectKey: String,
        query: [(String, String)] = [],
        headers: [String] = [],
        body: HTTPRequest.Body = .none,
        sink: HTTPRequest.Sink = .memory(limit: 8 << 20),
        for path: RemotePath?,
        accepting: Set<Int> = [200],
        idempotent: Bool = true,
        errorBodyMayHide200: Bool = false
    ) async throws -> HTTPResponse {
        let url = url(objectKey, query: query)
        let policy = idempotent ? retryPolicy : .never
        return try await policy.run {
            try Task.checkCancellation()
            sentRequests.add(1, ordering: .relaxed)
            let response = try await pool.perform(for: path) { [signer, fixedHeaders] in
                var contentType: String?
                if case .data(_, let type) = body { contentType = type }
                let signedHeaders = signer.signed(method: method, url: url, headers: fixedHeaders + headers, contentType: contentType, at: Date())
                return HTTPRequest(method: method, url: url, headers: signedHeaders, body: body, sink: sink)
            }
            receivedBytes.add(Int(response.receivedByteCount), ordering: .relaxed)
            guard accepting.contains(response.status) else {
                throw RemoteStoreError.s3(response, method: method, path: path, bucket: settings.bucket)
            }
            if errorBodyMayHide200, response.status == 200, S3XMLElement.parse(response.body)?.name == "Error" {
                let document = S3XMLElement.parse(response.body)
                throw RemoteStoreError.s3(
                    S3ServiceError(status: response.status, code: document?.value("Code"), message: document?.value("Message")),
                    method: method, path: path, bucket: settings.bucket
                )
            }
            return response
        }
    }

    /// Closes every connection; later requests fail with `unavailable`.
    func close() async {
        await pool.close()
    }
}

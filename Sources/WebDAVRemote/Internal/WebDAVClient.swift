import CurlTransport
import Foundation
import RemoteProtocol
import RemoteTransportSupport
import Synchronization

/// Sends HTTP requests to one WebDAV server through a pool of libcurl connections, with the
/// reliability rules every request shares:
///
/// - **retries** with the store's ``RetryPolicy`` for idempotent requests that failed in a
///   retryable way (a dropped connection, a timeout, 429, 423, 500, 502, 503, 504);
/// - **redirects** (301, 302, 307, 308) followed by hand with the *same* method and body, at most
///   five times, and only within the same origin, so credentials never travel to another server;
/// - **cancellation**: cancelling the calling task aborts a running transfer.
final class WebDAVClient: Sendable {
    /// The server location.
    let endpoint: WebDAVEndpoint
    private let pool: CurlConnectionPool
    /// How retryable failures are retried: by ``send(_:for:accepting:idempotent:)`` for idempotent
    /// requests, by callers that can check the effect of the others.
    let retryPolicy: RetryPolicy
    private let sentRequests = Atomic<Int>(0)

    private static let redirectStatuses: Set<Int> = [301, 302, 307, 308]
    private static let maximumRedirects = 5

    /// Creates a client of at most `connectionCount` connections, which open on first use.
    init(endpoint: WebDAVEndpoint, options: CurlOptions, connectionCount: Int, retryPolicy: RetryPolicy) {
        self.endpoint = endpoint
        pool = CurlConnectionPool(options: options, capacity: connectionCount)
        self.retryPolicy = retryPolicy
    }

    /// Sends `request` and returns the response if its status is in `accepting`.
    ///
    /// - Parameters:
    ///   - path: the remote path named in errors.
    ///   - accepting: the statuses the caller handles; any other status throws.
    ///   - idempotent: whether the request may be sent again after a retryable failure.
    /// - Throws: `CancellationError`, or ``RemoteStoreError`` (see
    ///   `RemoteStoreError.httpStatus(_:method:path:body:)` and `RemoteStoreError.transport(_:detail:)`).
    func send(_ request: HTTPRequest, for path: RemotePath?, accepting: Set<Int>, idempotent: Bool) async throws -> HTTPResponse {
        let policy = idempotent ? retryPolicy : .never
        return try await policy.run {
            try await sendFollowingRedirects(request, for: path, accepting: accepting)
        }
    }

    /// How many HTTP requests have been sent (every attempt, redirect and retry counts).
    var requestCount: Int { sentRequests.load(ordering: .relaxed) }

    /// Closes every connection; later requests fail with `unavailable`.
    func close() async {
        await pool.close()
    }

    private func sendFollowingRedirects(_ original: HTTPRequest, for path: RemotePath?, accepting: Set<Int>) async throws
        -> HTTPResponse
    {
        var request = original
        for _ in 0...Self.maximumRedirects {
            let response = try await perform(request, for: path)
            if accepting.contains(response.status) { return response }
            guard Self.redirectStatuses.contains(response.status), let location = response.headers["location"] else {
                throw RemoteStoreError.httpStatus(response.status, method: request.method, path: path, body: response.body)
            }
            guard let target = endpoint.sameOriginRedirect(location, from: request.url) else {
                throw RemoteStoreError(
                    .invalidResponse,
                    path: path,
                    message: "\(request.method) was redirected to another server (\(location)); not followed"
                )
            }
            request.url = target
        }
        throw RemoteStoreError(.invalidResponse, path: path, message: "\(original.method) was redirected too many times")
    }

    private func perform(_ request: HTTPRequest, for path: RemotePath?) async throws -> HTTPResponse {
        try Task.checkCancellation()
        sentRequests.add(1, ordering: .relaxed)
        return try await pool.perform(request, for: path)
    }
}

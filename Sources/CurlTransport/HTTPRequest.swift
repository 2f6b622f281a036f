import Foundation

/// One HTTP request as a libcurl-based store sends it: method, absolute URL, extra headers, what to send
/// and where the response body goes.
package struct HTTPRequest: Sendable {
    /// What the request sends after its headers.
    package enum Body: Sendable {
        /// Nothing.
        case none
        /// A small in-memory body (a PROPFIND property list, an S3 DeleteObjects document), sent with its Content-Type.
        case data(Data, contentType: String)
        /// A local file streamed from disk with a Content-Length of `size` bytes.
        case file(URL, size: Int64)
        /// `length` bytes of a local file from byte `offset` (a part of a multipart upload),
        /// streamed from disk.
        case fileRange(URL, offset: Int64, length: Int64)
    }

    /// Where a successful (2xx) response body goes. Bodies of other statuses are kept in memory
    /// (capped) for error messages.
    package enum Sink: Sendable {
        /// Kept in memory, up to `limit` bytes; a longer body fails with `invalidResponse`.
        case memory(limit: Int)
        /// Written to a local file, which is created or truncated.
        case file(URL)
    }

    /// The HTTP method (`PROPFIND`, `PUT`, `MOVE`…).
    package var method: String
    /// The absolute, percent-encoded URL.
    package var url: String
    /// Extra header lines (`Depth: 1`, `Overwrite: T`…).
    package var headers: [String]
    /// The request body.
    package var body: Body
    /// Where a 2xx response body goes.
    package var sink: Sink

    /// The largest body of a non-2xx response that is kept (for error messages).
    package static let errorBodyLimit = 16 * 1024

    /// Creates a request; by default with no body and a small in-memory sink.
    package init(method: String, url: String, headers: [String] = [], body: Body = .none, sink: Sink = .memory(limit: 1 << 20)) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.sink = sink
    }
}

import Foundation

/// A tiny HTTP/1.1 server on a loopback port that answers every request with whatever bytes a
/// responder returns, including deliberately broken responses (malformed XML, HTML error pages,
/// truncated bodies, lying Content-Length headers).
///
/// One connection at a time, each closed after its response. The accept loop runs on its own
/// thread; ``stop()`` ends it.
final class FaultInjectingHTTPServer: @unchecked Sendable {
    // @unchecked Sendable: `listener` and `port` are immutable after init; the responder is Sendable.

    /// Returns the raw response (status line, headers, body) for a request's method and path.
    typealias Responder = @Sendable (_ method: String, _ path: String) -> Data

    /// The loopback port the server listens on.
    let port: UInt16
    private let listener: Int32
    private let responder: Responder

    /// Starts listening on 127.0.0.1 on a free port.
    init(responder: @escaping Responder) throws {
        self.responder = responder
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard listener >= 0 else { throw POSIXError(.EMFILE) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(listener, generic, length) == 0 && listen(listener, 16) == 0
                    && getsockname(listener, generic, &length) == 0
            }
        }
        guard bound else {
            close(listener)
            throw POSIXError(.EADDRINUSE)
        }
        port = UInt16(bigEndian: address.sin_port)
        self.listener = listener
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    /// The server's base URL with the `webdav` scheme.
    var url: URL { URL(string: "webdav://127.0.0.1:\(port)/")! }

    /// Stops accepting connections. The accept loop closes the listener when it sees that: a
    /// close here could let the loop, still serving, accept on a number another socket got since.
    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
    }

    private func acceptLoop() {
        defer { close(listener) }
        while true {
            let connection = accept(listener, nil, nil)
            if connection < 0 {
                if errno == EINTR { continue }
                return
            }
            _ = fcntl(connection, F_SETFD, FD_CLOEXEC)
            serve(connection)
            close(connection)
        }
    }

    private func serve(_ connection: Int32) {
        var received = Data()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var headerEnd: Range<Data.Index>?
        while headerEnd == nil {
            let count = read(connection, &buffer, buffer.count)
            guard count > 0 else { return }
            received.append(contentsOf: buffer[0..<count])
            headerEnd = received.range(of: Data("\r\n\r\n".utf8))
        }
        let head = String(decoding: received[..<headerEnd!.lowerBound], as: UTF8.self)
        let lines = head.components(separatedBy: "\r\n")
        let requestLine = lines[0].split(separator: " ")
        let contentLength = lines.dropFirst()
            .first { $0.lowercased().hasPrefix("content-length:") }
            .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
        var bodyCount = received.count - headerEnd!.upperBound
        while bodyCount < contentLength {
            let count = read(connection, &buffer, buffer.count)
            guard count > 0 else { return }
            bodyCount += count
        }
        let response = responder(
            requestLine.count > 0 ? String(requestLine[0]) : "",
            requestLine.count > 1 ? String(requestLine[1]) : ""
        )
        response.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = write(connection, bytes.baseAddress! + offset, bytes.count - offset)
                if written <= 0 { return }
                offset += written
            }
        }
    }
}

extension FaultInjectingHTTPServer {
    /// A raw HTTP response. `contentLength` defaults to the body's real length; pass another value
    /// to lie.
    static func response(status: String, headers: [String] = [], body: Data, contentLength: Int? = nil) -> Data {
        var head = "HTTP/1.1 \(status)\r\nConnection: close\r\nContent-Length: \(contentLength ?? body.count)\r\n"
        for header in headers { head += header + "\r\n" }
        return Data((head + "\r\n").utf8) + body
    }

    /// A 207 multistatus listing `/` (a collection) and the given files of `size` bytes with `etag`.
    static func multistatus(files: [String], size: Int, etag: String = "\"v1\"") -> Data {
        var xml = #"<?xml version="1.0" encoding="utf-8"?><D:multistatus xmlns:D="DAV:">"#
        xml += #"<D:response><D:href>/</D:href><D:propstat><D:prop><D:resourcetype><D:collection/></D:resourcetype>"#
        xml += "</D:prop><D:status>HTTP/1.1 200 OK</D:status></D:propstat></D:response>"
        for file in files {
            xml += "<D:response><D:href>\(file)</D:href><D:propstat><D:prop><D:resourcetype/>"
            xml += "<D:getcontentlength>\(size)</D:getcontentlength><D:getetag>\(etag)</D:getetag>"
            xml += "</D:prop><D:status>HTTP/1.1 200 OK</D:status></D:propstat></D:response>"
        }
        xml += "</D:multistatus>"
        return response(status: "207 Multi-Status", headers: ["Content-Type: application/xml"], body: Data(xml.utf8))
    }
}

import CCurl
import Foundation
import RemoteProtocol
import RemoteTransportSupport

/// One libcurl easy handle, owned by an actor that runs on its own dedicated thread.
///
/// `curl_easy_perform` blocks for as long as a transfer takes, so it must never run on Swift's
/// cooperative pool: the actor's executor is a ``DedicatedThreadExecutor``. The handle is reused
/// request after request (`curl_easy_reset` keeps its connection and DNS caches), so a connection
/// to the server stays open between requests. One request runs at a time.
package actor CurlConnection {
    private let executor: DedicatedThreadExecutor
    private let handle: UnsafeMutableRawPointer
    private let options: CurlOptions
    private let errorBuffer: UnsafeMutablePointer<CChar>

    package nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// Creates the handle and its thread.
    /// - Throws: ``RemoteStoreError`` with code `unknown` if libcurl cannot be initialised.
    package init(name: String, options: CurlOptions) throws {
        guard CurlLibrary.isInitialized, let handle = curl_easy_init() else {
            throw RemoteStoreError(.unknown, message: "libcurl could not be initialised")
        }
        self.handle = handle
        self.options = options
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
        executor = DedicatedThreadExecutor(name: name)
    }

    isolated deinit {
        curl_easy_cleanup(handle)
        errorBuffer.deallocate()
        executor.shutdown()
    }

    /// Sends `request` and waits for the whole response.
    ///
    /// Returns any HTTP status; only failures to get a response throw.
    /// - Throws: `CancellationError` once `cancellation` is set (the progress callback aborts the
    ///   transfer within about a second); ``RemoteStoreError`` with `localFile` if the upload or
    ///   download file cannot be opened, read or written, `invalidResponse` for a truncated or
    ///   oversized body, and the codes of `RemoteStoreError.transport(_:detail:)` otherwise.
    package func perform(_ request: HTTPRequest, cancellation: CancellationFlag) throws -> HTTPResponse {
        curl_easy_reset(handle)
        errorBuffer[0] = 0
        let memoryLimit: Int
        if case .memory(let limit) = request.sink { memoryLimit = limit } else { memoryLimit = 0 }
        let transfer = CurlTransfer(cancellation: cancellation, memoryLimit: memoryLimit)
        defer {
            if transfer.uploadDescriptor >= 0 { close(transfer.uploadDescriptor) }
            if transfer.downloadDescriptor >= 0 { close(transfer.downloadDescriptor) }
        }
        try configure(request, transfer: transfer)
        transfer.install(on: handle, pointer: Unmanaged.passUnretained(transfer).toOpaque())
        let headerList = Self.headerList(for: request)
        defer { curl_slist_free_all(headerList) }
        _ = ccurl_setopt_slist(handle, CURLOPT_HTTPHEADER, headerList)

        let code = withExtendedLifetime(transfer) { curl_easy_perform(handle) }
        if cancellation.isCancelled { throw CancellationError() }
        if let failure = transfer.failure { throw Self.error(for: failure) }
        guard code == CURLE_OK else {
            throw RemoteStoreError.transport(code, detail: String(cString: errorBuffer), serverKind: options.serverKind)
        }
        var status = 0
        _ = ccurl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
        return HTTPResponse(
            status: status,
            headers: transfer.headers,
            body: transfer.body,
            receivedByteCount: transfer.receivedByteCount
        )
    }

    /// Sets every option of `request` except its headers on the freshly reset handle.
    private func configure(_ request: HTTPRequest, transfer: CurlTransfer) throws {
        _ = ccurl_setopt_string(handle, CURLOPT_URL, request.url)
        _ = ccurl_setopt_pointer(handle, CURLOPT_ERRORBUFFER, errorBuffer)
        _ = ccurl_setopt_long(handle, CURLOPT_NOSIGNAL, 1)
        _ = ccurl_setopt_long(handle, CURLOPT_TCP_KEEPALIVE, 1)
        _ = ccurl_setopt_close_on_exec_sockets(handle)
        _ = ccurl_setopt_string(handle, CURLOPT_USERAGENT, "RollingSync-\(options.serverKind)")
        _ = ccurl_setopt_long(handle, CURLOPT_BUFFERSIZE, options.bufferSize)
        _ = ccurl_setopt_long(handle, CURLOPT_UPLOAD_BUFFERSIZE, min(options.bufferSize, 2 * 1024 * 1024))
        _ = ccurl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, Self.milliseconds(options.connectTimeout))
        _ = ccurl_setopt_long(handle, CURLOPT_LOW_SPEED_LIMIT, options.lowSpeedLimit)
        _ = ccurl_setopt_long(handle, CURLOPT_LOW_SPEED_TIME, max(1, Self.milliseconds(options.lowSpeedTime) / 1000))
        configureSecurity()

        switch request.body {
        case .none:
            break
        case .data(let data, _):
            _ = ccurl_setopt_off(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(data.count))
            data.withUnsafeBytes { bytes in
                _ = ccurl_setopt_pointer(handle, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: bytes.baseAddress))
            }
        case .file(let url, let size):
            transfer.uploadDescriptor = open(url.path, O_RDONLY | O_CLOEXEC)
            guard transfer.uploadDescriptor >= 0 else {
                throw RemoteStoreError(
                    .localFile,
                    message: "cannot open the local file \(url.path) for upload: \(String(cString: strerror(errno)))"
                )
            }
            _ = ccurl_setopt_long(handle, CURLOPT_UPLOAD, 1)
            _ = ccurl_setopt_off(handle, CURLOPT_INFILESIZE_LARGE, curl_off_t(size))
        case .fileRange(let url, let offset, let length):
            transfer.uploadDescriptor = open(url.path, O_RDONLY | O_CLOEXEC)
            guard transfer.uploadDescriptor >= 0, lseek(transfer.uploadDescriptor, off_t(offset), SEEK_SET) == off_t(offset) else {
                throw RemoteStoreError(
                    .localFile,
                    message: "cannot read the local file \(url.path) from byte \(offset): \(String(cString: strerror(errno)))"
                )
            }
            transfer.uploadRange = (offset, length)
            _ = ccurl_setopt_long(handle, CURLOPT_UPLOAD, 1)
            _ = ccurl_setopt_off(handle, CURLOPT_INFILESIZE_LARGE, curl_off_t(length))
        }
        if request.method == "HEAD" {
            // A HEAD answer announces a Content-Length but has no body: libcurl must not wait for one.
            _ = ccurl_setopt_long(handle, CURLOPT_NOBODY, 1)
        } else if request.method != "GET" {
            _ = ccurl_setopt_string(handle, CURLOPT_CUSTOMREQUEST, request.method)
        }
        if case .file(let url) = request.sink {
            transfer.downloadDescriptor = open(url.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            guard transfer.downloadDescriptor >= 0 else {
                throw RemoteStoreError(
                    .localFile,
                    message: "cannot create the local file \(url.path): \(String(cString: strerror(errno)))"
                )
            }
        }
    }

    /// Credentials and TLS trust. The password is handed to libcurl only, never to a URL (S3
    /// signs its requests itself and sets no password). libcurl never reads a netrc file: the
    /// backends resolve their passwords themselves (WebDAV through `RemoteTransportSupport.Netrc`).
    private func configureSecurity() {
        let authentication = switch options.authentication {
        case .basic: ccurl_auth_basic()
        case .digest: ccurl_auth_digest()
        case .any: ccurl_auth_any()
        }
        _ = ccurl_setopt_long(handle, CURLOPT_HTTPAUTH, authentication)
        if let password = options.password {
            if let user = options.user { _ = ccurl_setopt_string(handle, CURLOPT_USERNAME, user) }
            _ = ccurl_setopt_string(handle, CURLOPT_PASSWORD, password)
        }
        _ = ccurl_setopt_long(handle, CURLOPT_SSL_VERIFYPEER, 1)
        _ = ccurl_setopt_long(handle, CURLOPT_SSL_VERIFYHOST, 2)
        if let caFile = options.caFile { _ = ccurl_setopt_string(handle, CURLOPT_CAINFO, caFile) }
    }


    /// The request's own headers, its Content-Type, and an empty `Expect:` so libcurl does not
    /// wait for `100 Continue` before sending a body. A PUT or POST without a body says so with
    /// `Content-Length: 0`, which libcurl leaves out (Ceph RGW answers UploadPartCopy without it
    /// `411 Length Required`).
    private static func headerList(for request: HTTPRequest) -> UnsafeMutablePointer<curl_slist>? {
        var list: UnsafeMutablePointer<curl_slist>?
        var lines = request.headers + ["Expect:"]
        if case .data(_, let contentType) = request.body { lines.append("Content-Type: \(contentType)") }
        if case .none = request.body, request.method == "PUT" || request.method == "POST" { lines.append("Content-Length: 0") }
        for line in lines {
            list = curl_slist_append(list, line)
        }
        return list
    }

    private static func error(for failure: CurlTransfer.Failure) -> RemoteStoreError {
        switch failure {
        case .localRead(let code):
            return RemoteStoreError(.localFile, message: "reading the local file failed: \(String(cString: strerror(code)))")
        case .localWrite(let code):
            return RemoteStoreError(.localFile, message: "writing the local file failed: \(String(cString: strerror(code)))")
        case .bodyTooLarge(let limit):
            return RemoteStoreError(.invalidResponse, message: "the server's response is larger than \(limit) bytes")
        }
    }

    private static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000)
    }
}

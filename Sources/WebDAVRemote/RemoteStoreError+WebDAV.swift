import CurlTransport
import Foundation
import RemoteProtocol

/// The libcurl failure kept as the ``RemoteProtocol/RemoteStoreError/underlying`` error of this
/// store's transport errors (defined with the curl code both libcurl-based backends share).
public typealias CurlError = CurlTransport.CurlError

extension RemoteStoreError {
    /// The error for an HTTP status that the operation did not expect.
    ///
    /// 401 → `authenticationFailed`; 403 → `permissionDenied`; 404, 409 (a missing parent) and
    /// 410 → `notFound`; 408 and 504 → `timedOut`; 423 (locked) and 429 → `rateLimited`; 507 and
    /// 413 → `insufficientStorage`; 500, 502 and 503 → `unavailable`; anything else, including
    /// unexpected 2xx and 3xx, → `invalidResponse`. The message names the method and status and
    /// quotes the start of a plain-text body, which never holds a credential of ours.
    static func httpStatus(_ status: Int, method: String, path: RemotePath?, body: Data = Data()) -> RemoteStoreError {
        let code: Code
        switch status {
        case 401: code = .authenticationFailed
        case 403: code = .permissionDenied
        case 404, 409, 410: code = .notFound
        case 408, 504: code = .timedOut
        case 423, 429: code = .rateLimited
        case 413, 507: code = .insufficientStorage
        case 500, 502, 503: code = .unavailable
        default: code = .invalidResponse
        }
        var message = "\(method) answered HTTP \(status)"
        if let summary = summary(of: body) { message += ": \(summary)" }
        return RemoteStoreError(code, path: path, message: message)
    }

    /// The first line of text of a short error body, with HTML tags removed; `nil` if there is none.
    private static func summary(of body: Data) -> String? {
        let text = String(decoding: body.prefix(2048), as: UTF8.self)
            .replacingOccurrences(of: "<[^>]*>", with: " ", options: .regularExpression)
        let line = text.split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .first { !$0.isEmpty }
        return line.map { String($0.prefix(160)) }
    }
}

import CurlTransport
import Foundation
import RemoteProtocol

/// An S3 error answer, kept as the ``RemoteProtocol/RemoteStoreError/underlying`` error of the S3
/// store's errors: the HTTP status and, from the XML body, S3's error code and message (never a
/// credential: S3 does not echo secrets, and request headers are never kept).
public struct S3ServiceError: Error, Sendable, CustomStringConvertible {
    /// The HTTP status (403, 404, 503…).
    public let status: Int
    /// S3's error code (`SignatureDoesNotMatch`, `NoSuchBucket`, `SlowDown`…); `nil` when the
    /// answer had no XML body (HEAD requests never have one).
    public let code: String?
    /// S3's explanation, if any.
    public let message: String?

    public var description: String {
        "HTTP \(status)" + (code.map { " \($0)" } ?? "") + (message.map { ": \($0)" } ?? "")
    }
}

extension RemoteStoreError {
    /// The error for an S3 answer the operation did not expect, classified by S3's error code
    /// (from the XML body) first, then by the HTTP status:
    ///
    /// - `SignatureDoesNotMatch`, `InvalidAccessKeyId`, `InvalidToken`, `ExpiredToken`,
    ///   `TokenRefreshRequired`, 401 → `authenticationFailed`;
    /// - `AccessDenied`, other 403 → `permissionDenied`;
    /// - `NoSuchBucket` → `notFound` of the store's root, naming the bucket; `NoSuchKey`,
    ///   `NoSuchUpload`, 404 → `notFound`;
    /// - `SlowDown`, `ConditionalRequestConflict`, 429 → `rateLimited`; `InternalError`,
    ///   `ServiceUnavailable`, 500, 502, 503 → `unavailable`; `RequestTimeout`, 408, 504 →
    ///   `timedOut` (all three retryable, with the store's back-off);
    /// - `PreconditionFailed`, 412 → `alreadyExists` (only `If-None-Match: *` asks for it);
    /// - `EntityTooLarge`, `QuotaExceeded` → `insufficientStorage`;
    /// - `PermanentRedirect`, `AuthorizationHeaderMalformed` (wrong region) and anything else →
    ///   `invalidResponse`, with S3's message (which names the right region or endpoint).
    static func s3(_ response: HTTPResponse, method: String, path: RemotePath?, bucket: String) -> RemoteStoreError {
        let document = S3XMLElement.parse(response.body)
        let isError = document?.name == "Error"
        let serviceError = S3ServiceError(
            status: response.status,
            code: isError ? document?.value("Code") : nil,
            message: isError ? document?.value("Message") : nil
        )
        return s3(serviceError, method: method, path: path, bucket: bucket)
    }

    /// The error for `serviceError` (see ``s3(_:method:path:bucket:)``).
    static func s3(_ serviceError: S3ServiceError, method: String, path: RemotePath?, bucket: String) -> RemoteStoreError {
        let code: Code
        var path = path
        var message = "S3 \(method) answered \(serviceError)"
        switch serviceError.code {
        case "SignatureDoesNotMatch", "InvalidAccessKeyId", "InvalidToken", "ExpiredToken", "TokenRefreshRequired":
            code = .authenticationFailed
            message += " (check the access key and secret: AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY or the profile)"
        case "AccessDenied", "AllAccessDisabled":
            code = .permissionDenied
        case "NoSuchBucket":
            code = .notFound
            path = RemotePath.root
            message = "the S3 bucket '\(bucket)' does not exist (S3 \(method) answered \(serviceError))"
        case "NoSuchKey", "NoSuchUpload":
            code = .notFound
        case "SlowDown", "ConditionalRequestConflict", "TooManyRequests":
            code = .rateLimited
        case "InternalError", "ServiceUnavailable":
            code = .unavailable
        case "RequestTimeout":
            code = .timedOut
        case "PreconditionFailed":
            code = .alreadyExists
        case "EntityTooLarge", "QuotaExceeded":
            code = .insufficientStorage
        default:
            switch serviceError.status {
            case 401: code = .authenticationFailed
            case 403: code = .permissionDenied
            case 404: code = .notFound
            case 412: code = .alreadyExists
            case 429: code = .rateLimited
            case 408, 504: code = .timedOut
            case 500, 502, 503: code = .unavailable
            default: code = .invalidResponse
            }
        }
        return RemoteStoreError(code, path: path, message: message, underlying: serviceError)
    }
}

extension S3ServiceError: LocalizedError {
    /// The same sentence as ``description``, so that `localizedDescription` (what apps and
    /// Foundation show) says what went wrong instead of "The operation could not be completed".
    public var errorDescription: String? { description }
}

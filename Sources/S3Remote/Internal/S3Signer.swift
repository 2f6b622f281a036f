import CryptoPrimitives
import Foundation
import RemoteProtocol

/// AWS Signature Version 4 of S3 requests, in the `Authorization` header.
///
/// Computed here, not by libcurl: libcurl before 8.10 (Debian 12 ships 7.88) sorts the signed
/// headers by their whole `name:value` line instead of by name, so a header whose name starts with
/// another's (`x-amz-copy-source` and `x-amz-copy-source-range` of UploadPartCopy, metadata such as
/// `x-amz-meta-a` and `x-amz-meta-a-b`) is signed in the wrong order, and AWS, Ceph RGW and moto
/// refuse the request with `SignatureDoesNotMatch` (curl pull request 14370).
///
/// What is signed: the method, the URL's path and query exactly as sent (``S3Client`` puts both in
/// canonical form), the `Host` header (sent explicitly, so libcurl cannot send another), every
/// header the store sets and the body's `Content-Type` (names lowercased, values trimmed, runs of
/// spaces made one, a name given twice signed once with its values joined by commas), and the
/// payload hash the request declares in `x-amz-content-sha256`. Only the transport's own
/// `Content-Length` and empty `Expect:` go unsigned. A header with an empty value must not be
/// given: libcurl does not send it.
struct S3Signer: Sendable, CustomStringConvertible {
    let accessKeyID: String
    private let secretAccessKey: String
    let region: String

    init(credentials: S3Credentials, region: String) {
        accessKeyID = credentials.accessKeyID
        secretAccessKey = credentials.secretAccessKey
        self.region = region
    }

    /// Never the secret.
    var description: String { "S3Signer(accessKeyID: …\(accessKeyID.suffix(4)), region: \(region))" }

    /// `headers` (lines `Name: value`) with the `Host`, `x-amz-date` and `Authorization` headers
    /// that sign a request of `method` to `url` at `date`, whose body (if any) has `contentType`
    /// (the transport sends that header itself).
    func signed(method: String, url: String, headers: [String], contentType: String? = nil, at date: Date) -> [String] {
        let (host, path, query) = Self.parts(of: url)
        let timestamp = Self.timestamp(date)
        let day = String(timestamp.prefix(8))
        var values = ["host": [host], "x-amz-date": [timestamp]]
        for line in headers + (contentType.map { ["Content-Type: \($0)"] } ?? []) {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
            let value = line[line.index(after: colon)...].split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
            values[name, default: []].append(value)
        }
        let signedHeaders = values.keys.sorted().map { ($0, values[$0, default: []].joined(separator: ",")) }
        let payloadHash = values["x-amz-content-sha256"]?.first ?? "UNSIGNED-PAYLOAD"
        let names = signedHeaders.map(\.0).joined(separator: ";")
        let canonicalRequest = [
            method, path, query, signedHeaders.map { "\($0.0):\($0.1)\n" }.joined(), names, payloadHash,
        ].joined(separator: "\n")
        let scope = "\(day)/\(region)/s3/aws4_request"
        let stringToSign = ["AWS4-HMAC-SHA256", timestamp, scope, Hex.lowercase(SHA256.hash(Array(canonicalRequest.utf8)))].joined(separator: "\n")
        var key = Array("AWS4\(secretAccessKey)".utf8)
        for part in [day, region, "s3", "aws4_request"] {
            key = HMACSHA256.authenticationCode(for: Array(part.utf8), key: key)
        }
        let signature = Hex.lowercase(HMACSHA256.authenticationCode(for: Array(stringToSign.utf8), key: key))
        return headers + [
            "Host: \(host)", "x-amz-date: \(timestamp)",
            "Authorization: AWS4-HMAC-SHA256 Credential=\(accessKeyID)/\(scope), SignedHeaders=\(names), Signature=\(signature)",
        ]
    }

    /// The host (with its port unless it is the scheme's default), path and query of `url`, as
    /// written in it.
    static func parts(of url: String) -> (host: String, path: String, query: String) {
        let schemeEnd = url.range(of: "://")
        let scheme = schemeEnd.map { url[..<$0.lowerBound].lowercased() } ?? "https"
        let rest = schemeEnd.map { url[$0.upperBound...] } ?? url[...]
        let pathStart = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        var host = String(rest[..<pathStart])
        for (defaultScheme, port) in [("http", ":80"), ("https", ":443")] where scheme == defaultScheme && host.hasSuffix(port) {
            host.removeLast(port.count)
        }
        let target = rest[pathStart...]
        let queryStart = target.firstIndex(of: "?")
        let path = String(target[..<(queryStart ?? target.endIndex)])
        let query = queryStart.map { String(target[target.index(after: $0)...]) } ?? ""
        return (host.lowercased(), path.isEmpty ? "/" : path, query)
    }

    /// `date` as SigV4 writes it, `yyyyMMdd'T'HHmmss'Z'` in UTC.
    static func timestamp(_ date: Date) -> String {
        timestampStyle.format(date)
    }

    private static let timestampStyle = Date.ISO8601FormatStyle(
        dateSeparator: .omitted, dateTimeSeparator: .standard, timeSeparator: .omitted, timeZone: .gmt
    )
}

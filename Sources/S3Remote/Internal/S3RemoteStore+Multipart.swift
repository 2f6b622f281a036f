import CurlTransport
import Foundation
import RemoteProtocol

extension S3RemoteStore {
    /// Uploads `localFile` in parts of ``Configuration/partSize`` bytes, each streamed from its
    /// range of the file (memory does not grow with the file), up to
    /// ``Configuration/partConcurrency`` at once.
    func multipartUpload(_ localFile: URL, size: Int64, to path: RemotePath) async throws {
        let partSize = configuration.partSize
        try await multipart(to: path, size: size, partSize: partSize) { [client] number, uploadID in
            let offset = Int64(number - 1) * partSize
            let response = try await client.send(
                "PUT", client.key.file(path), query: [("partNumber", "\(number)"), ("uploadId", uploadID)],
                body: .fileRange(localFile, offset: offset, length: min(partSize, size - offset)), for: path
            )
            guard let etag = response.headers["etag"] else {
                throw RemoteStoreError(.invalidResponse, path: path, message: "UploadPart answered without an ETag")
            }
            return etag
        }
    }

    /// Copies `source` in parts with `UploadPartCopy` (for objects above 5 GiB, which
    /// `CopyObject` refuses).
    func multipartCopy(_ source: RemotePath, size: Int64, to destination: RemotePath) async throws {
        let partSize = max(configuration.partSize, (size + 9_999) / 10_000)
        let copySource = client.copySource(client.key.file(source))
        try await multipart(to: destination, size: size, partSize: partSize) { [client] number, uploadID in
            let first = Int64(number - 1) * partSize
            let last = min(first + partSize, size) - 1
            let response = try await client.send(
                "PUT", client.key.file(destination), query: [("partNumber", "\(number)"), ("uploadId", uploadID)],
                headers: ["x-amz-copy-source: \(copySource)", "x-amz-copy-source-range: bytes=\(first)-\(last)"],
                for: destination, errorBodyMayHide200: true
            )
            guard let etag = S3XMLElement.parse(response.body)?.value("ETag") else {
                throw RemoteStoreError(.invalidResponse, path: destination, message: "UploadPartCopy answered without an ETag")
            }
            return etag
        }
    }

    /// A multipart upload to `path` of `size` bytes in parts of `partSize`: initiates it, sends
    /// the parts with `sendPart` (part number, upload id → ETag) a few at a time, completes it,
    /// and aborts it (in a task the caller's cancellation does not stop) if anything fails or
    /// the caller is cancelled, so no parts are left stored (and billed).
    private func multipart(
        to path: RemotePath,
        size: Int64,
        partSize: Int64,
        sendPart: @escaping @Sendable (Int, String) async throws -> String
    ) async throws {
        let client = client
        let objectKey = client.key.file(path)
        let initiated = try await client.send(
            "POST", objectKey, query: [("uploads", "")], headers: ["Content-Type: application/octet-stream"],
            for: path, idempotent: false
        )
        guard let uploadID = S3XMLElement.parse(initiated.body)?.value("UploadId"), !uploadID.isEmpty else {
            throw RemoteStoreError(.invalidResponse, path: path, message: "CreateMultipartUpload answered without an UploadId")
        }
        do {
            let partCount = Int((size + partSize - 1) / partSize)
            let etags = try await sendParts(count: max(1, partCount), uploadID: uploadID, sendPart: sendPart)
            let parts = etags.enumerated().map { "<Part><PartNumber>\($0.offset + 1)</PartNumber><ETag>\(xmlEscaped($0.element))</ETag></Part>" }
            let body = Data("<CompleteMultipartUpload>\(parts.joined())</CompleteMultipartUpload>".utf8)
            try await Task {
                do {
                    _ = try await client.send(
                        "POST", objectKey, query: [("uploadId", uploadID)], body: .data(body, contentType: "application/xml"),
                        for: path, errorBodyMayHide200: true
                    )
                } catch let error as RemoteStoreError where error.code == .notFound {
                    // A retry after a lost answer finds the upload gone: completed if the object has the size.
                    guard try await head(path)?.contentLength == size else { throw error }
                }
            }.value
        } catch {
            await Task {
                _ = try? await client.send(
                    "DELETE", objectKey, query: [("uploadId", uploadID)], for: path, accepting: [200, 204, 404]
                )
            }.value
            throw error
        }
    }

    /// Sends parts 1…`count`, at most ``Configuration/partConcurrency`` at once; returns their
    /// ETags in order.
    private func sendParts(
        count: Int,
        uploadID: String,
        sendPart: @escaping @Sendable (Int, String) async throws -> String
    ) async throws -> [String] {
        try await withThrowingTaskGroup(of: (Int, String).self) { group in
            var etags = [String](repeating: "", count: count)
            var next = 1
            let width = max(1, configuration.partConcurrency)
            while next <= min(width, count) {
                let number = next
                group.addTask { (number, try await sendPart(number, uploadID)) }
                next += 1
            }
            while let (number, etag) = try await group.next() {
                etags[number - 1] = etag
                if next <= count {
                    let number = next
                    group.addTask { (number, try await sendPart(number, uploadID)) }
                    next += 1
                }
            }
            return etags
        }
    }
}

import CCurl
import Foundation
import RemoteTransportSupport

/// The state of one libcurl transfer, handed to libcurl's C callbacks through their userdata
/// pointer: the local files it streams from and to, the response being collected, and the
/// cancellation flag its progress callback polls.
///
/// Used only on the connection's thread while `curl_easy_perform` runs, so it needs no locking.
final class CurlTransfer {
    /// Why a callback stopped the transfer, when it was not libcurl's own failure.
    enum Failure {
        /// Reading the local upload file failed with `errno`.
        case localRead(Int32)
        /// Writing the local download file failed with `errno`.
        case localWrite(Int32)
        /// A body meant for memory was longer than its limit.
        case bodyTooLarge(limit: Int)
    }

    let cancellation: CancellationFlag
    /// The descriptor of the file being uploaded, or -1.
    var uploadDescriptor: Int32 = -1
    /// The descriptor a 2xx body is written to, or -1 to keep it in memory.
    var downloadDescriptor: Int32 = -1
    /// For an upload of part of the file: where it starts and how many bytes it has; `nil` to
    /// send the file from its current offset to its end.
    var uploadRange: (offset: Int64, length: Int64)?
    /// How many bytes of ``uploadRange`` are sent so far.
    private var uploadedByteCount: Int64 = 0
    /// The largest 2xx body kept in memory.
    let memoryLimit: Int

    private(set) var status = 0
    private(set) var headers: [String: String] = [:]
    private(set) var body = Data()
    private(set) var receivedByteCount: Int64 = 0
    private(set) var failure: Failure?

    init(cancellation: CancellationFlag, memoryLimit: Int) {
        self.cancellation = cancellation
        self.memoryLimit = memoryLimit
    }

    private var isSuccessStatus: Bool { (200..<300).contains(status) }

    /// Takes one header line. A status line starts a new block (after `100 Continue`, a redirect
    /// or an authentication challenge), so everything collected so far is dropped.
    fileprivate func receiveHeader(_ line: String) {
        let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.hasPrefix("HTTP/") {
            let fields = trimmed.split(separator: " ", maxSplits: 2)
            status = fields.count > 1 ? Int(fields[1]) ?? 0 : 0
            headers = [:]
            body = Data()
            receivedByteCount = 0
        } else if let colon = trimmed.firstIndex(of: ":") {
            let name = trimmed[..<colon].lowercased()
            headers[name] = trimmed[trimmed.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
    }

    /// Takes body bytes; returns how many were consumed (fewer makes libcurl abort).
    fileprivate func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Int {
        receivedByteCount += Int64(bytes.count)
        if isSuccessStatus && downloadDescriptor >= 0 {
            do {
                try FileDescriptorIO.write(bytes, to: downloadDescriptor)
            } catch {
                failure = .localWrite(error.code)
                return 0
            }
            return bytes.count
        }
        let limit = isSuccessStatus ? memoryLimit : HTTPRequest.errorBodyLimit
        if body.count + bytes.count > limit {
            if isSuccessStatus {
                failure = .bodyTooLarge(limit: limit)
                return 0
            }
            body.append(contentsOf: bytes.prefix(max(0, limit - body.count)))
            return bytes.count
        }
        body.append(contentsOf: bytes)
        return bytes.count
    }

    /// Fills `buffer` from the upload file; 0 means end of file.
    fileprivate func sendBody(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        do {
            guard let range = uploadRange else {
                return try FileDescriptorIO.read(from: uploadDescriptor, into: buffer)
            }
            let remaining = Int(min(Int64(buffer.count), range.length - uploadedByteCount))
            guard remaining > 0 else { return 0 }
            let count = try FileDescriptorIO.read(from: uploadDescriptor, into: UnsafeMutableRawBufferPointer(rebasing: buffer[..<remaining]))
            uploadedByteCount += Int64(count)
            return count
        } catch {
            failure = .localRead(error.code)
            return ccurl_readfunc_abort()
        }
    }

    /// Moves the upload file back, when libcurl must send the body again (an authentication
    /// round-trip); true on success.
    fileprivate func rewind(to offset: Int64, origin: Int32) -> Bool {
        guard let range = uploadRange else { return lseek(uploadDescriptor, off_t(offset), origin) >= 0 }
        guard origin == SEEK_SET, offset <= range.length else { return false }
        uploadedByteCount = offset
        return lseek(uploadDescriptor, off_t(range.offset + offset), SEEK_SET) >= 0
    }
}

extension CurlTransfer {
    /// Installs the callbacks on `handle`, with `pointer` (an unretained reference to this
    /// transfer, kept alive by the caller for the whole perform) as their userdata.
    func install(on handle: UnsafeMutableRawPointer, pointer: UnsafeMutableRawPointer) {
        _ = ccurl_setopt_header_function(handle) { data, size, count, userdata in
            let length = size * count
            guard let data, let userdata else { return length }
            let transfer = Unmanaged<CurlTransfer>.fromOpaque(userdata).takeUnretainedValue()
            let bytes = UnsafeRawBufferPointer(start: data, count: length)
            transfer.receiveHeader(String(decoding: bytes, as: UTF8.self))
            return length
        }
        _ = ccurl_setopt_pointer(handle, CURLOPT_HEADERDATA, pointer)
        _ = ccurl_setopt_write_function(handle) { data, size, count, userdata in
            let length = size * count
            guard let data, let userdata else { return length }
            let transfer = Unmanaged<CurlTransfer>.fromOpaque(userdata).takeUnretainedValue()
            return transfer.receiveBody(UnsafeRawBufferPointer(start: data, count: length))
        }
        _ = ccurl_setopt_pointer(handle, CURLOPT_WRITEDATA, pointer)
        _ = ccurl_setopt_long(handle, CURLOPT_NOPROGRESS, 0)
        _ = ccurl_setopt_xferinfo_function(handle) { userdata, _, _, _, _ in
            guard let userdata else { return 0 }
            let transfer = Unmanaged<CurlTransfer>.fromOpaque(userdata).takeUnretainedValue()
            return transfer.cancellation.isCancelled ? 1 : 0
        }
        _ = ccurl_setopt_pointer(handle, CURLOPT_XFERINFODATA, pointer)
        guard uploadDescriptor >= 0 else { return }
        _ = ccurl_setopt_read_function(handle) { buffer, size, count, userdata in
            guard let buffer, let userdata else { return ccurl_readfunc_abort() }
            let transfer = Unmanaged<CurlTransfer>.fromOpaque(userdata).takeUnretainedValue()
            return transfer.sendBody(into: UnsafeMutableRawBufferPointer(start: buffer, count: size * count))
        }
        _ = ccurl_setopt_pointer(handle, CURLOPT_READDATA, pointer)
        _ = ccurl_setopt_seek_function(handle) { userdata, offset, origin in
            guard let userdata else { return ccurl_seekfunc_fail() }
            let transfer = Unmanaged<CurlTransfer>.fromOpaque(userdata).takeUnretainedValue()
            return transfer.rewind(to: Int64(offset), origin: origin) ? ccurl_seekfunc_ok() : ccurl_seekfunc_fail()
        }
        _ = ccurl_setopt_pointer(handle, CURLOPT_SEEKDATA, pointer)
    }
}

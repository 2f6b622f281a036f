import Foundation
import RemoteTransportSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

struct FileDescriptorIOTests {
    /// 1 MiB through a pipe, whose 64 KiB buffer forces short writes and partial reads: the
    /// writer completes every write, and the reader gets every byte in order.
    @Test func bytesCrossAPipeWhole() async throws {
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        let (readEnd, writeEnd) = (ends[0], ends[1])
        let sent = Data((0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 8) })
        let writer = Thread {
            sent.withUnsafeBytes { bytes in
                try? FileDescriptorIO.write(bytes, to: writeEnd)
            }
            close(writeEnd)
        }
        writer.start()
        var received = Data()
        var buffer = [UInt8](repeating: 0, count: 50_000)
        while true {
            let count = try buffer.withUnsafeMutableBytes { try FileDescriptorIO.read(from: readEnd, into: $0) }
            if count == 0 { break }
            received.append(contentsOf: buffer[0..<count])
        }
        close(readEnd)
        #expect(received == sent)
    }

    @Test func failuresCarryErrno() throws {
        var buffer = [UInt8](repeating: 0, count: 16)
        let readError = try #require(throws: SystemCallError.self) {
            _ = try buffer.withUnsafeMutableBytes { try FileDescriptorIO.read(from: -1, into: $0) }
        }
        #expect(readError.code == EBADF)
        let writeError = try #require(throws: SystemCallError.self) {
            try buffer.withUnsafeBytes { try FileDescriptorIO.write($0, to: -1) }
        }
        #expect(writeError.code == EBADF)
        #expect(!writeError.text.isEmpty)
    }

    @Test func emptyBuffersDoNothing() throws {
        #expect(try FileDescriptorIO.read(from: -1, into: UnsafeMutableRawBufferPointer(start: nil, count: 0)) == 0)
        try FileDescriptorIO.write(UnsafeRawBufferPointer(start: nil, count: 0), to: -1)
    }
}

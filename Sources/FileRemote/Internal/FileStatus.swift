import Foundation
import RemoteProtocol

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What `stat` says about a file-system entry, reduced to what FileRemote needs.
struct FileStatus: Sendable {
    /// The kinds of entry FileRemote tells apart.
    enum Kind: Sendable {
        case file
        case directory
        case symbolicLink
        /// A FIFO, socket or device: never reported, never read.
        case other
    }

    /// The entry's kind.
    let kind: Kind
    /// The size in bytes.
    let size: Int64
    /// The modification time, from the nanosecond field of `stat`.
    let modificationDate: Date

    init(_ info: stat) {
        switch info.st_mode & S_IFMT {
        case S_IFREG: kind = .file
        case S_IFDIR: kind = .directory
        case S_IFLNK: kind = .symbolicLink
        default: kind = .other
        }
        size = Int64(info.st_size)
        #if canImport(Darwin)
        let time = info.st_mtimespec
        #else
        let time = info.st_mtim
        #endif
        modificationDate = Date(timeIntervalSince1970: Double(time.tv_sec) + Double(time.tv_nsec) / 1_000_000_000)
    }
}

extension FileStatus {
    /// The item `path` describes with this status: files with size and date, directories with
    /// date; `nil` for links and other kinds, which are never reported.
    func item(at path: RemotePath) -> RemoteItem? {
        switch kind {
        case .file: RemoteItem(path: path, kind: .file, size: size, modificationDate: modificationDate)
        case .directory: RemoteItem(path: path, kind: .directory, modificationDate: modificationDate)
        case .symbolicLink, .other: nil
        }
    }
}

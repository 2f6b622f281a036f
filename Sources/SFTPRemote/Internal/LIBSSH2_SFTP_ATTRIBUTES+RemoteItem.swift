import CLibSSH2
import Foundation
import RemoteProtocol

extension LIBSSH2_SFTP_ATTRIBUTES {
    /// File or directory, or `nil` for anything else (symbolic links, devices, sockets), which the
    /// store leaves out, and for entries whose type the server did not send.
    var remoteKind: RemoteItem.Kind? {
        guard flags & UInt(LIBSSH2_SFTP_ATTR_PERMISSIONS) != 0 else { return nil }
        switch permissions & UInt(LIBSSH2_SFTP_S_IFMT) {
        case UInt(LIBSSH2_SFTP_S_IFDIR): return .directory
        case UInt(LIBSSH2_SFTP_S_IFREG): return .file
        default: return nil
        }
    }

    /// True for a directory (not a link to one).
    var isDirectory: Bool { remoteKind == .directory }

    /// The item these attributes describe at `path`, or `nil` if it is neither file nor directory.
    /// Sizes are given for files; modification times have SFTP v3's 1-second precision.
    func remoteItem(at path: RemotePath) -> RemoteItem? {
        guard let kind = remoteKind else { return nil }
        let size = kind == .file && flags & UInt(LIBSSH2_SFTP_ATTR_SIZE) != 0 ? Int64(clamping: filesize) : nil
        let date = flags & UInt(LIBSSH2_SFTP_ATTR_ACMODTIME) != 0 ? Date(timeIntervalSince1970: TimeInterval(mtime)) : nil
        return RemoteItem(path: path, kind: kind, size: size, modificationDate: date)
    }
}

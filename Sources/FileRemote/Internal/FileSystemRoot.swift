import Foundation
import RemoteProtocol
import RemoteTransportSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The store's root folder, resolved once, and the rules that keep every call inside it.
///
/// Every path is opened component by component from the root with `O_NOFOLLOW`, so no symbolic
/// link is ever followed implicitly. When a component turns out to be a link, its target is
/// resolved with `realpath` and accepted only if it lies inside the root; the walk then restarts
/// on the target's real path, again with `O_NOFOLLOW`, so a link swapped in between the check and
/// the use makes the call fail instead of escaping. Links that lead outside are refused with
/// ``RemoteStoreError/Code/permissionDenied``.
///
/// All methods block; they run on ``FileIOThreads``.
struct FileSystemRoot: Sendable {
    /// An entry of a directory: the open directory, the entry's name in it and its status.
    struct Entry: Sendable {
        /// The directory that holds the entry, open.
        let directory: FileDescriptor
        /// The entry's name inside ``directory``.
        let name: String
        /// The entry's status, not following a symbolic link; `nil` if nothing is there.
        /// A ``FileStatus/Kind/symbolicLink`` here is a link whose target does not exist.
        let status: FileStatus?
    }

    /// How many symbolic links (and retries after concurrent changes) one resolution may go
    /// through before it gives up, as Linux's own limit.
    static let maximumSteps = 40

    /// The real absolute path of the root: no symbolic links and no trailing `/` (unless it is `/`).
    let path: String

    /// Resolves `rootPath` (which may itself be, or pass through, a symbolic link) once.
    ///
    /// - Throws: ``RemoteStoreError`` with code ``RemoteStoreError/Code/notFound`` if the folder
    ///   does not exist, ``RemoteStoreError/Code/notADirectory`` if it is a file, or the mapped
    ///   code of any other failure.
    init(resolving rootPath: String) throws(RemoteStoreError) {
        guard let resolved = realpath(rootPath, nil) else {
            let failure = SystemCallError.current
            throw RemoteStoreError(
                RemoteStoreError.Code(errno: failure.code),
                message: "the root folder '\(rootPath)' cannot be opened: \(failure.text)"
                    + (failure.code == ENOENT ? "; create it first" : ""),
                underlying: POSIXErrorCode(rawValue: failure.code).map { POSIXError($0) }
            )
        }
        path = String(cString: resolved)
        free(resolved)
        do {
            _ = try FileDescriptor.openDirectory(atPath: path)
        } catch {
            throw RemoteStoreError(
                RemoteStoreError.Code(errno: error.code),
                message: "the root '\(rootPath)' is not a usable folder: \(error.text)",
                underlying: POSIXErrorCode(rawValue: error.code).map { POSIXError($0) }
            )
        }
    }

    /// Opens the directory `components` below the root, following links that stay inside it.
    ///
    /// - Parameters:
    ///   - path: the path the caller works on, for error messages.
    ///   - creatingMissing: create missing directories on the way (and the last one) instead of
    ///     failing with ``RemoteStoreError/Code/notFound``; a file at the last component is then
    ///     ``RemoteStoreError/Code/alreadyExists``.
    /// - Throws: ``RemoteStoreError``: ``RemoteStoreError/Code/notFound`` for a missing
    ///   directory, ``RemoteStoreError/Code/notADirectory`` for a file on the way,
    ///   ``RemoteStoreError/Code/permissionDenied`` for a link that leads outside the root.
    func openDirectory(
        _ components: some Collection<String>,
        for path: RemotePath,
        creatingMissing: Bool = false
    ) throws(RemoteStoreError) -> FileDescriptor {
        let context = FailureContext.remote(path)
        var remaining = ArraySlice(components)
        var walked: [String] = []
        var directory = try openRoot(for: path)
        var steps = 0
        while let name = remaining.first {
            let opened: FileDescriptor
            do {
                opened = try directory.openDirectory(named: name)
            } catch {
                steps += 1
                guard steps <= Self.maximumSteps else {
                    throw context.error(SystemCallError(code: ELOOP), "resolve")
                }
                switch error.code {
                case ENOENT where creatingMissing:
                    try makeDirectory(name, in: directory, for: path)
                    continue
                case ENOTDIR:
                    let status: FileStatus?
                    do {
                        status = try directory.status(ofEntry: name)
                    } catch {
                        throw context.error(error, "inspect a directory on the way to")
                    }
                    switch status?.kind {
                    case .symbolicLink:
                        let target = try realComponents(ofLink: walked + [name], for: path)
                        remaining = ArraySlice(target) + remaining.dropFirst()
                        walked = []
                        directory = try openRoot(for: path)
                        continue
                    case .directory?, nil:
                        continue  // changed meanwhile: try again
                    case .file?, .other?:
                        if creatingMissing && remaining.count == 1 {
                            throw RemoteStoreError(.alreadyExists, path: path, message: "a file stands at '\(path)'")
                        }
                        throw context.error(error, "open a directory on the way to")
                    }
                default:
                    throw context.error(error, "open a directory on the way to")
                }
            }
            directory = opened
            walked.append(name)
            remaining = remaining.dropFirst()
        }
        return directory
    }

    /// Opens the parent of `path` (which is not the root) and looks at its last component.
    ///
    /// - Parameter followingFinalLink: when the last component is a symbolic link, describe its
    ///   target instead (refusing one outside the root); when false, the link itself.
    /// - Throws: the errors of ``openDirectory(_:for:creatingMissing:)``, and
    ///   ``RemoteStoreError/Code/permissionDenied`` for a final link that leads outside the root
    ///   or to the root itself.
    func entry(at path: RemotePath, followingFinalLink: Bool) throws(RemoteStoreError) -> Entry {
        precondition(!path.isRoot, "the root has no parent entry")
        let context = FailureContext.remote(path)
        var components = path.components
        for _ in 0...Self.maximumSteps {
            let name = components[components.count - 1]
            let parentComponents = components.dropLast()
            let directory = try openDirectory(parentComponents, for: path)
            let status: FileStatus?
            do {
                status = try directory.status(ofEntry: name)
            } catch {
                throw context.error(error, "inspect")
            }
            guard followingFinalLink, status?.kind == .symbolicLink else {
                return Entry(directory: directory, name: name, status: status)
            }
            do {
                components = try realComponents(ofLink: Array(parentComponents) + [name], for: path)
            } catch RemoteStoreError.Code.notFound {
                return Entry(directory: directory, name: name, status: status)  // a dangling link
            }
            guard !components.isEmpty else {
                throw RemoteStoreError(
                    .permissionDenied,
                    path: path,
                    message: "'\(path)' is a symbolic link to the store's root itself; it is not followed"
                )
            }
        }
        throw context.error(SystemCallError(code: ELOOP), "resolve")
    }

    /// The components of the real location of the link at `components` (relative to the root),
    /// which must lie inside the root.
    private func realComponents(
        ofLink components: [String],
        for path: RemotePath
    ) throws(RemoteStoreError) -> [String] {
        let linkPath = ([self.path == "/" ? "" : self.path] + components).joined(separator: "/")
        guard let resolved = realpath(linkPath, nil) else {
            throw FailureContext.remote(path).error(.current, "follow a symbolic link on the way to")
        }
        let target = String(cString: resolved)
        free(resolved)
        guard let relative = relativeComponents(of: target) else {
            throw RemoteStoreError(
                .permissionDenied,
                path: path,
                message: "'\(components.joined(separator: "/"))' is a symbolic link that leads outside "
                    + "the store's root "
                    + "(to '\(target)'); FileRemote does not follow it"
            )
        }
        return relative
    }

    /// The components of the real path `target` below the root, or `nil` if it lies outside.
    /// Compares bytes, not Unicode-equivalent characters: two spellings of "é" are two folders.
    private func relativeComponents(of target: String) -> [String]? {
        let prefix = path == "/" ? "/" : path + "/"
        if target.utf8.elementsEqual(path.utf8) { return [] }
        guard target.utf8.starts(with: prefix.utf8) else { return nil }
        return target.utf8.dropFirst(prefix.utf8.count)
            .split(separator: UInt8(ascii: "/"))
            .map { String(decoding: $0, as: UTF8.self) }
    }

    /// Opens the root folder. A root that has vanished since the store was opened (an unmounted
    /// share) is ``RemoteStoreError/Code/unavailable``, not `notFound`: the path asked about may
    /// well exist once the folder is back.
    private func openRoot(for path: RemotePath) throws(RemoteStoreError) -> FileDescriptor {
        do {
            return try FileDescriptor.openDirectory(atPath: self.path)
        } catch where error.code == ENOENT {
            throw RemoteStoreError(
                .unavailable,
                path: path,
                message: "the store's root folder '\(self.path)' is gone (an unmounted share?)",
                underlying: POSIXError(.ENOENT)
            )
        } catch {
            throw FailureContext.remote(path).error(error, "open the store's root folder for")
        }
    }

    /// Creates `name` in `directory` (tolerating a concurrent creation) and makes the new entry
    /// durable.
    private func makeDirectory(
        _ name: String,
        in directory: FileDescriptor,
        for path: RemotePath
    ) throws(RemoteStoreError) {
        do {
            try directory.makeDirectory(named: name)
            try directory.synchronize()
        } catch where error.code == EEXIST {
            return
        } catch {
            throw FailureContext.remote(path).error(error, "create a directory for")
        }
    }
}

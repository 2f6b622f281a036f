import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Starting a child with posix_spawn, shared by ``TestProcess`` and ``SpawnedProcess``.
///
/// Neither uses Foundation's `Process`: on Linux its child monitor was seen to block in `wait4` on
/// a long-running child (sshd, ssh-agent) when another child exits, stalling every test that runs
/// a tool at the same time.
enum PosixSpawn {
    /// Where one of the child's standard descriptors goes: a file opened with `flags`.
    struct Redirection {
        var descriptor: Int32
        var path: String
        var flags: Int32
    }

    /// Starts `arguments[0]` (an absolute path) with `arguments`, the test process's environment
    /// with `environment` applied (a `nil` value removes the variable), and `redirections`.
    ///
    /// The child starts with no blocked signals: the test runner's threads block SIGTERM, and a
    /// child inheriting that mask (Apache) would ignore ``SpawnedProcess/terminate()``.
    ///
    /// It inherits no descriptor but its standard ones: every other is closed in the child
    /// (`posix_spawn_file_actions_addclosefrom_np`), whether or not it was opened close-on-exec.
    /// An inherited socket keeps its connection open for as long as the child lives, whatever the
    /// test process does with it: a ``FaultyTCPProxy`` cutting a connection while a `rollsync`
    /// child of a concurrent test held a copy cut nothing, and the client waited for its
    /// 30-second low-speed limit (the WebDAV dropped-connection tests failed this way whenever a
    /// process test ran beside them).
    static func spawn(_ arguments: [String], environment: [String: String?], redirections: [Redirection]) throws -> pid_t {
        guard let executable = arguments.first else { throw TestSupportError("no executable to start") }
        var variables = ProcessInfo.processInfo.environment
        for (key, value) in environment { variables[key] = value }
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for redirection in redirections {
            posix_spawn_file_actions_addopen(&actions, redirection.descriptor, redirection.path, redirection.flags, 0o600)
        }
        guard let closeFrom = Self.addCloseFrom else {
            throw TestSupportError("posix_spawn_file_actions_addclosefrom_np is missing (glibc 2.34 or later has it)")
        }
        _ = closeFrom(&actions, 3)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
        var child: pid_t = 0
        let result = posix_spawn(&child, executable, &actions, &attributes, argv, envp)
        guard result == 0 else {
            throw TestSupportError("cannot start \(executable): \(String(cString: strerror(result)))")
        }
        return child
    }

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34+), looked up at run time: Swift's
    /// Glibc module does not declare GNU extensions.
    private static let addCloseFrom: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
    }()
}

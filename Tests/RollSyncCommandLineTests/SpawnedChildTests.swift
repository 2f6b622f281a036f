import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The children the tests start (`rollsync`, servers, tools) inherit only their standard
/// descriptors. An inherited socket outlives the test process's own close: a `rollsync` child of
/// one test held copies of the connections a ``FaultyTCPProxy`` of another test was cutting, so
/// the cut never reached the client (see ``PosixSpawn``).
@Suite("Spawned children")
struct SpawnedChildTests {
    @Test("a child inherits no descriptor but stdin, stdout and stderr, close-on-exec or not")
    func childInheritsOnlyStandardDescriptors() async throws {
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0, "pipe: \(errno)")
        defer { ends.forEach { close($0) } }
        #expect(fcntl(ends[0], F_GETFD) & FD_CLOEXEC == 0, "the pipe is inheritable, as a socket libcurl opened was")
        for descriptor in ends {
            let outcome = try await TestProcess.run("/usr/bin/test", ["-e", "/proc/self/fd/\(descriptor)"])
            #expect(outcome.status == 1, "the child has descriptor \(descriptor)")
        }
        let own = try await TestProcess.run("/usr/bin/test", ["-e", "/proc/self/fd/2"])
        #expect(own.status == 0, "the child keeps its standard error")
    }
}

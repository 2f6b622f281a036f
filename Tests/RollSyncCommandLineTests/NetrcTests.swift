import Testing

@testable import RollSyncCommandLine

/// The `~/.netrc` reader the WebDAV credentials come from.
@Suite("Netrc")
struct NetrcTests {
    @Test("a machine's entry wins over the default; tokens may span lines")
    func machineAndDefault() {
        let netrc = Netrc(parsing: """
            machine dav.example.org
              login alice
              password s3cret
            machine other.example.org login bob password pw account ignored
            default login anonymous password guest
            """)
        #expect(netrc.credentials(for: "dav.example.org")?.login == "alice")
        #expect(netrc.credentials(for: "dav.example.org")?.password == "s3cret")
        #expect(netrc.credentials(for: "other.example.org")?.password == "pw")
        #expect(netrc.credentials(for: "unknown.example.org")?.login == "anonymous")
    }

    @Test("without a default, an unknown host has no credentials")
    func noDefault() {
        #expect(Netrc(parsing: "machine a login x password y").credentials(for: "b") == nil)
        #expect(Netrc(parsing: "").credentials(for: "b") == nil)
    }
}

import RemoteTransportSupport
import Testing

/// The `~/.netrc` reader the WebDAV credentials come from (for the backend and for `rollsync`).
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

    @Test("with a login, the first entry of the host with that login (or none) wins; hosts ignore case")
    func loginSelectsTheEntry() {
        let netrc = Netrc(parsing: """
            machine dav.example.org login alice password a
            machine DAV.example.org login bob password b
            machine dav.example.org password anyone
            """)
        #expect(netrc.credentials(for: "dav.example.org", login: "bob")?.password == "b")
        #expect(netrc.credentials(for: "dav.example.org", login: "carol")?.password == "anyone")
        #expect(netrc.credentials(for: "Dav.Example.Org")?.login == "alice")
    }

    @Test("quoted tokens, comment lines and macdef bodies are read as libcurl reads them")
    func quotingCommentsAndMacros() {
        let netrc = Netrc(parsing: #"""
            # machine commented.example.org login x password y
            macdef init
            machine inside.macro login m password n

            machine dav.example.org login "alice smith" password "two words \"quoted\" \\ end"
            """#)
        #expect(netrc.credentials(for: "commented.example.org") == nil)
        #expect(netrc.credentials(for: "inside.macro") == nil)
        #expect(netrc.credentials(for: "dav.example.org")?.login == "alice smith")
        #expect(netrc.credentials(for: "dav.example.org")?.password == #"two words "quoted" \ end"#)
    }
}

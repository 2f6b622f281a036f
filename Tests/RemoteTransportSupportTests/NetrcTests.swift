import RemoteTransportSupport
import Testing

/// The `~/.netrc` reader the WebDAV credentials come from (for the backend and for `rollsync`),
/// checked against what libcurl 7.88's reader gives for the same files.
@Suite("Netrc")
struct NetrcTests {
    @Test("a machine's entry wins over the default; tokens may span lines")
    func machineAndDefault() throws {
        let netrc = Netrc(parsing: """
            machine dav.example.org
              login alice
              password s3cret
            machine other.example.org login bob password pw account ignored
            default login anonymous password guest
            """)
        #expect(try netrc.credentials(for: "dav.example.org")?.login == "alice")
        #expect(try netrc.credentials(for: "dav.example.org")?.password == "s3cret")
        #expect(try netrc.credentials(for: "other.example.org")?.password == "pw")
        #expect(try netrc.credentials(for: "unknown.example.org")?.login == "anonymous")
    }

    @Test("without a default, an unknown host has no credentials")
    func noDefault() throws {
        #expect(try Netrc(parsing: "machine a login x password y").credentials(for: "b") == nil)
        #expect(try Netrc(parsing: "").credentials(for: "b") == nil)
    }

    @Test("with a login: the first entry of the host gives its password if its login is that one or it has none; later ones only with that login")
    func loginSelectsTheEntry() throws {
        let netrc = Netrc(parsing: """
            machine dav.example.org login alice password a
            machine DAV.example.org login bob password b
            machine dav.example.org password anyone
            """)
        #expect(try netrc.credentials(for: "dav.example.org", login: "bob")?.password == "b")
        #expect(try netrc.credentials(for: "dav.example.org", login: "carol")?.password == nil, "libcurl gives no password here")
        #expect(try netrc.credentials(for: "Dav.Example.Org")?.login == "alice")
        let loginless = Netrc(parsing: "machine dav.example.org password anyone\nmachine dav.example.org login carol password c")
        #expect(try loginless.credentials(for: "dav.example.org", login: "carol")?.password == "anyone", "the first entry has no login")
    }

    @Test("quoted tokens, comment lines and macdef bodies are read as libcurl reads them")
    func quotingCommentsAndMacros() throws {
        let netrc = Netrc(parsing: #"""
            # machine commented.example.org login x password y
            macdef init
            machine inside.macro login m password n

            machine dav.example.org login "alice smith" password "two words \"quoted\" \\ end"
            """#)
        #expect(try netrc.credentials(for: "commented.example.org") == nil)
        #expect(try netrc.credentials(for: "inside.macro") == nil)
        #expect(try netrc.credentials(for: "dav.example.org")?.login == "alice smith")
        #expect(try netrc.credentials(for: "dav.example.org")?.password == #"two words "quoted" \ end"#)
    }

    @Test("a comment after tokens ends its line only; CRLF files, keywords in capitals and stray tokens read as libcurl reads them")
    func trailingCommentsCRLFAndCase() throws {
        let netrc = Netrc(parsing: "machine a login b password c #old one\r\nMACHINE dav.example.org LOGIN alice\r\n"
            + "  Password s3cret\r\nmacdef init\r\ncd /\r\n\r\nmachine after.macro login m password n\r\n")
        #expect(try netrc.credentials(for: "a") == Netrc.Credentials(login: "b", password: "c"))
        #expect(try netrc.credentials(for: "dav.example.org") == Netrc.Credentials(login: "alice", password: "s3cret"))
        #expect(try netrc.credentials(for: "after.macro")?.password == "n", "the macro ends at the empty CRLF line")
    }

    @Test("an unterminated quoted token is refused as libcurl refuses it, naming the line")
    func unterminatedQuote() throws {
        let netrc = Netrc(parsing: "machine a login b password c\nmachine dav.example.org login alice password \"s3cret\n")
        #expect(throws: Netrc.MalformedFile(line: 2)) { try netrc.credentials(for: "dav.example.org") }
        #expect(try Netrc(parsing: "macdef x\n\"open\n\nmachine a login b password c").credentials(for: "a")?.password == "c",
                "a macro body is never read")
    }
}

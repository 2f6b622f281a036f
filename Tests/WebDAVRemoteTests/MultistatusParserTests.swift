import Foundation
import RemoteProtocol
import Testing

@testable import WebDAVRemote

/// The multistatus parser and the listing rules on real server answers and on hostile ones.
struct MultistatusParserTests {
    private let endpoint = try! WebDAVEndpoint(url: URL(string: "webdav://127.0.0.1:18080/")!)
    private let hostileName = "sp ace 世界 ?#&+%.txt"

    private func listing(_ xml: String, of directory: RemotePath) throws -> [String: MultistatusEntry] {
        let entries = try MultistatusParser.parse(Data(xml.utf8), path: directory)
        let children = try WebDAVRemoteStore.children(in: entries, of: directory, endpoint: endpoint)
        return Dictionary(uniqueKeysWithValues: children.map { ($0.path.name, $0.entry) })
    }

    /// Foundation's XMLParser traps on a name that is not valid UTF-8 and crashes on a processing
    /// instruction without data (found by fuzzing; see `XMLParser.forServerAnswer`): such an
    /// answer is `invalidResponse`, and the process lives. A DTD is refused as well.
    @Test(arguments: [
        [0x3C, 0x61, 0xFF, 0x3E],
        Array(#"<?xml version="1.0"?><D:multistatus xmlns:D="DAV:"><?x?></D:multistatus>"#.utf8),
        Array(#"<!DOCTYPE m [<!ENTITY a "aaaaaaaa">]><D:multistatus xmlns:D="DAV:">&a;</D:multistatus>"#.utf8),
        Array(#"<?xml version="1.0"?><D:multistatus xmlns:D="DAV:"><D:resp"#.utf8) + [0xCF, 0xCF] + Array("onse/></D:multistatus>".utf8),
        Array(#"<D:multistatus xmlns:D="DAV:" a"#.utf8) + [0xC0] + Array(#"="1"/>"#.utf8),
    ] as [[UInt8]])
    func namesThatAreNotUTF8AreInvalidResponses(_ body: [UInt8]) {
        #expect {
            _ = try MultistatusParser.parse(Data(body), path: "dir")
        } throws: { error in
            (error as? RemoteStoreError)?.code == .invalidResponse
        }
    }

    @Test(arguments: [MultistatusSamples.apacheDepth1, MultistatusSamples.wsgidavDepth1])
    func realDepthOneListingsGiveTheSameChildren(_ xml: String) throws {
        let children = try listing(xml, of: "sample")
        #expect(Set(children.keys) == [hostileName, "empty", "sub dir"])
        #expect(children[hostileName]?.contentLength == 3)
        #expect(children[hostileName]?.isCollection == false)
        #expect(children["empty"]?.contentLength == 0)
        #expect(children["sub dir"]?.isCollection == true)
        // Apache's 404 propstat for getcontentlength on the collection adds nothing.
        #expect(children["sub dir"]?.contentLength == nil)
        let expectedDate = Date(timeIntervalSince1970: 1_795_317_884)  // Sun, 22 Nov 2026 03:24:44 GMT
        #expect(children["empty"]?.lastModified == expectedDate)
    }

    @Test(arguments: [MultistatusSamples.apacheDepth0, MultistatusSamples.wsgidavDepth0])
    func realDepthZeroAnswersDescribeTheFile(_ xml: String) throws {
        let entries = try MultistatusParser.parse(Data(xml.utf8), path: "sample/empty")
        #expect(entries.count == 1)
        #expect(endpoint.relativeComponents(ofHref: entries[0].href) == ["sample", "empty"])
        #expect(entries[0].isCollection == false)
        #expect(entries[0].contentLength == 0)
        #expect(entries[0].etag != nil)
    }

    @Test func hrefsAreDecodedBeforeComparing() {
        let base = try! WebDAVEndpoint(url: URL(string: "webdavs://host:8443/dav%20root/")!)
        #expect(base.relativeComponents(ofHref: "https://host:8443/dav%20root/a%2fb/") == ["a/b"])
        #expect(base.relativeComponents(ofHref: "/dav root/raw name+&.txt") == ["raw name+&.txt"])
        #expect(base.relativeComponents(ofHref: "/dav%20root/caf%C3%A9") == base.relativeComponents(ofHref: "/dav%20root/cafe%CC%81"))
        #expect(base.relativeComponents(ofHref: "/other/x") == nil)
        #expect(base.relativeComponents(ofHref: "/dav%20root/") == [])
    }

    @Test func propertiesComeOnlyFromSuccessfulPropstats() throws {
        let xml = """
            <?xml version="1.0"?><d:multistatus xmlns:d="DAV:" xmlns:x="urn:other">
            <d:response><d:href>/dir/</d:href>
              <d:propstat><d:prop><d:resourcetype><d:collection/></d:resourcetype></d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat>
            </d:response>
            <d:response><d:href>/dir/f</d:href>
              <d:propstat><d:prop><d:getcontentlength>12</d:getcontentlength><x:collection/></d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat>
              <d:propstat><d:prop><d:resourcetype><d:collection/></d:resourcetype><d:getcontentlength>99</d:getcontentlength></d:prop>
                <d:status>HTTP/1.1 403 Forbidden</d:status></d:propstat>
            </d:response></d:multistatus>
            """
        let children = try listing(xml, of: "dir")
        #expect(children["f"]?.contentLength == 12)
        #expect(children["f"]?.isCollection == false)
    }

    @Test func temporaryFilesAreHidden() throws {
        let xml = """
            <?xml version="1.0"?><D:multistatus xmlns:D="DAV:">
            <D:response><D:href>/d/</D:href><D:propstat><D:prop><D:resourcetype><D:collection/></D:resourcetype></D:prop>
            <D:status>HTTP/1.1 200 OK</D:status></D:propstat></D:response>
            <D:response><D:href>/d/\(RemotePath.reservedTemporaryPrefix)123</D:href><D:propstat><D:prop><D:resourcetype/></D:prop>
            <D:status>HTTP/1.1 200 OK</D:status></D:propstat></D:response>
            </D:multistatus>
            """
        #expect(try listing(xml, of: "d").isEmpty)
    }

    @Test(arguments: [
        "<html><body>Not WebDAV</body></html>",
        #"<?xml version="1.0"?><D:multistatus xmlns:D="DAV:"><D:response><D:href>/a</D:href>"#,
        #"<?xml version="1.0"?><multistatus xmlns="urn:not-dav"><response><href>/a</href></response></multistatus>"#,
        #"<?xml version="1.0"?><D:multistatus xmlns:D="DAV:"><D:response></D:response></D:multistatus>"#,
        #"<?xml version="1.0"?><D:multistatus xmlns:D="DAV:"><D:response><D:href>/a</D:href><D:propstat><D:prop><D:getcontentlength>-4</D:getcontentlength></D:prop><D:status>HTTP/1.1 200 OK</D:status></D:propstat></D:response></D:multistatus>"#,
        #"<?xml version="1.0"?><D:multistatus xmlns:D="DAV:"><D:response><D:href>/a</D:href><D:propstat><D:status>garbage</D:status></D:propstat></D:response></D:multistatus>"#,
        "",
    ])
    func malformedBodiesThrowInvalidResponse(_ xml: String) {
        #expect {
            _ = try MultistatusParser.parse(Data(xml.utf8), path: .root)
        } throws: { error in
            (error as? RemoteStoreError)?.code == .invalidResponse
        }
    }

    @Test func listingOfAFileThrowsNotADirectory() throws {
        let entries = try MultistatusParser.parse(Data(MultistatusSamples.apacheDepth0.utf8), path: "sample/empty")
        #expect {
            _ = try WebDAVRemoteStore.children(in: entries, of: "sample/empty", endpoint: endpoint)
        } throws: { error in
            (error as? RemoteStoreError)?.code == .notADirectory
        }
    }
}

import Foundation
import Testing

@testable import WebDAVRemote
import CurlTransport

struct HTTPDateTests {
    private let reference = Date(timeIntervalSince1970: 784_111_777)  // 1994-11-06 08:49:37 UTC

    @Test(arguments: [
        "Sun, 06 Nov 1994 08:49:37 GMT",  // RFC 1123
        "Sunday, 06-Nov-94 08:49:37 GMT",  // RFC 850
        "Sun Nov  6 08:49:37 1994",  // asctime
    ])
    func theThreeHTTPFormatsParse(_ text: String) {
        #expect(HTTPDate.parse(text) == reference)
    }

    @Test func leapDaysAndLateCenturiesAreRight() {
        #expect(HTTPDate.parse("Thu, 29 Feb 2024 23:59:59 GMT") == Date(timeIntervalSince1970: 1_709_251_199))
        #expect(HTTPDate.parse("Sun, 22 Nov 2026 03:24:44 GMT") == Date(timeIntervalSince1970: 1_795_317_884))
    }

    @Test(arguments: ["", "yesterday", "Sun, 06 Nov 1994 08:49:37 CET", "Sun, 32 Nov 1994 08:49:37 GMT", "2024-01-01T00:00:00"])
    func otherTextIsNotADate(_ text: String) {
        #expect(HTTPDate.parse(text) == nil)
    }
}

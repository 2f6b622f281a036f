import Foundation
import Testing

@testable import S3Remote

/// The `LastModified` of S3 listings, as AWS, Ceph RGW, MinIO and moto write it.
struct S3DateParsingTests {
    @Test("listing dates parse with or without fractional seconds and with an offset; anything else is nil")
    func parsesListingDates() {
        let second = 1_795_861_800.0  // 2026-11-28T10:30:00Z
        #expect(S3RemoteStore.parseISO8601("2026-11-28T10:30:00.000Z")?.timeIntervalSince1970 == second)
        #expect(S3RemoteStore.parseISO8601("2026-11-28T10:30:00Z")?.timeIntervalSince1970 == second)
        let fraction = S3RemoteStore.parseISO8601("2026-11-28T10:30:00.250Z")?.timeIntervalSince1970
        #expect(fraction.map { abs($0 - second - 0.25) < 0.001 } == true)
        #expect(S3RemoteStore.parseISO8601("2026-11-28T12:30:00+02:00")?.timeIntervalSince1970 == second)
        #expect(S3RemoteStore.parseISO8601("Sat, 28 Nov 2026 10:30:00 GMT") == nil)
        #expect(S3RemoteStore.parseISO8601("") == nil)
    }
}

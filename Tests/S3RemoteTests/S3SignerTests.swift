import Foundation
import Testing

@testable import S3Remote

/// AWS Signature Version 4 as ``S3Signer`` computes it: AWS's published example, and the header
/// order libcurl 7.88 got wrong. No server needed (the servers check signatures in the other suites).
struct S3SignerTests {
    private let signer = S3Signer(
        credentials: S3Credentials(accessKeyID: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
        region: "us-east-1"
    )
    /// 2013-05-24T00:00:00Z, the date of AWS's examples.
    private let exampleDate = Date(timeIntervalSince1970: 1_369_353_600)
    private let emptyHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

    @Test("AWS's example GET Bucket Lifecycle gets AWS's signature")
    func awsExample() {
        let headers = signer.signed(
            method: "GET", url: "https://examplebucket.s3.amazonaws.com/?lifecycle=", headers: ["x-amz-content-sha256: \(emptyHash)"],
            at: exampleDate
        )
        #expect(headers.contains("Host: examplebucket.s3.amazonaws.com"))
        #expect(headers.contains("x-amz-date: 20130524T000000Z"))
        #expect(headers.contains(
            "Authorization: AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, "
                + "SignedHeaders=host;x-amz-content-sha256;x-amz-date, Signature=fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543"
        ))
    }

    /// The vector was computed by botocore's `S3SigV4Auth` (the AWS CLI's signer) for the same
    /// request and date: names that start with another's, a value with spaces to trim and fold,
    /// and the body's Content-Type.
    @Test("UploadPartCopy's headers are signed as botocore signs them: by name, copy-source before its range")
    func prefixNamesSortByName() throws {
        let headers = signer.signed(
            method: "PUT", url: "http://127.0.0.1:9000/bucket/key?partNumber=1&uploadId=x",
            headers: ["x-amz-copy-source-range: bytes=0-9", "X-Amz-Copy-Source:  /bucket/a  b ", "x-amz-content-sha256: \(emptyHash)"],
            contentType: "text/plain", at: exampleDate
        )
        #expect(headers.contains(
            "Authorization: AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, "
                + "SignedHeaders=content-type;host;x-amz-content-sha256;x-amz-copy-source;x-amz-copy-source-range;x-amz-date, "
                + "Signature=17ef09a75e08872ecbdf1b1195e99a8a765c58cb0c034c1a00f8b53d9c59e510"
        ))
        #expect(headers.contains("Host: 127.0.0.1:9000"))
        #expect(!"\(signer)".contains("EXAMPLEKEY") && !"\(signer)".contains("AKIAIOSFODNN7"), "no secret, only the key id's end")
    }

    @Test("the host keeps a port unless it is the scheme's default; the path and query are signed as written")
    func urlParts() {
        #expect(S3Signer.parts(of: "https://b.s3.amazonaws.com:443/k%20ey?a=1") == ("b.s3.amazonaws.com", "/k%20ey", "a=1"))
        #expect(S3Signer.parts(of: "http://Host:80") == ("host", "/", ""))
        #expect(S3Signer.parts(of: "http://[::1]:9000/bucket/") == ("[::1]:9000", "/bucket/", ""))
        #expect(S3Signer.parts(of: "https://h:8443?list-type=2") == ("h:8443", "/", "list-type=2"))
    }

    @Test("the SigV4 timestamp drops fractions of a second, never rounds them up")
    func timestampTruncatesFractions() {
        let lastMoment = Date(timeIntervalSince1970: 1_369_353_599.9999)  // 2013-05-23T23:59:59.9999Z
        #expect(S3Signer.timestamp(lastMoment) == "20130523T235959Z")
    }
}

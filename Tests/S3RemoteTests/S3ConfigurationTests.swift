import Foundation
import RemoteProtocol
import Testing
import TestSupport

@testable import S3Remote

/// How an S3 store is configured from its URL, its settings and the AWS environment and shared
/// files, as the AWS CLI reads them — and that secrets never show. No server needed.
struct S3ConfigurationTests {
    private let secret = "sEcReT/kEy+0123456789abcdefghijklmnopqrs"
    private let token = "SeSsIoNtOkEn//abc=="

    private func open(_ url: String, settings: [String: String] = [:], environment: [String: String]) throws -> S3RemoteStore {
        try S3RemoteStore(configuration: RemoteStoreConfiguration(url: try #require(URL(string: url)), settings: settings), environment: environment)
    }

    @Test func urlGivesBucketPrefixEndpointRegionAndStyle() throws {
        let store = try open(
            "s3://my-bucket/sync/app?endpoint=http://127.0.0.1:9000&region=eu-west-3&style=path",
            environment: ["AWS_ACCESS_KEY_ID": "AKIAEXAMPLE1234", "AWS_SECRET_ACCESS_KEY": secret]
        )
        #expect(store.configuration.bucket == "my-bucket")
        #expect(store.configuration.prefix == "sync/app")
        #expect(store.region == "eu-west-3")
        #expect(store.endpoint.absoluteString == "http://127.0.0.1:9000")
        #expect(store.client.url("sync/app/a b?.txt") == "http://127.0.0.1:9000/my-bucket/sync/app/a%20b%3F.txt")
    }

    @Test func awsDefaultsUseVirtualHostedStyleAndTheRegionalEndpoint() throws {
        let store = try open("s3://my-bucket/p", environment: ["AWS_ACCESS_KEY_ID": "AKIAEXAMPLE1234", "AWS_SECRET_ACCESS_KEY": secret, "AWS_REGION": "ca-central-1"])
        #expect(store.client.url("p/x", query: [("prefix", "p/"), ("list-type", "2")])
            == "https://my-bucket.s3.ca-central-1.amazonaws.com/p/x?list-type=2&prefix=p%2F")
    }

    @Test func plainHTTPIsOnlyForLoopbackUnlessAllowed() throws {
        let environment = ["AWS_ACCESS_KEY_ID": "AKIAEXAMPLE1234", "AWS_SECRET_ACCESS_KEY": secret]
        let error = #expect(throws: RemoteStoreError.self) { try open("s3://b-1/p?endpoint=http://storage.example.com", environment: environment) }
        #expect(error?.code == .unsupported)
        _ = try open("s3://b-1/p?endpoint=http://storage.example.com&allow-insecure-http=yes", environment: environment)
        _ = try open("s3://b-1/p?endpoint=http://localhost:9000", environment: environment)
    }

    @Test func unknownSettingsAndCredentialsInTheURLAreRefused() throws {
        let environment = ["AWS_ACCESS_KEY_ID": "AKIAEXAMPLE1234", "AWS_SECRET_ACCESS_KEY": secret]
        #expect(throws: RemoteStoreError.self) { try open("s3://bucket/p?colour=blue", environment: environment) }
        let inURL = #expect(throws: RemoteStoreError.self) { try open("s3://AKIA:verysecret@bucket/p", environment: environment) }
        #expect(inURL?.message.contains("verysecret") == false)
        #expect(throws: RemoteStoreError.self) { try open("s3://Not_A_Bucket/p", environment: environment) }
    }

    @Test("a prefix with '.' or '..' segments, or an endpoint holding a user or password, is refused; the password is in no message")
    func dotSegmentsAndEndpointUsersAreRefused() throws {
        let environment = ["AWS_ACCESS_KEY_ID": "AKIAEXAMPLE1234", "AWS_SECRET_ACCESS_KEY": secret]
        for url in ["s3://bucket/a/../b?endpoint=http://127.0.0.1:9000", "s3://bucket/./a?endpoint=http://127.0.0.1:9000"] {
            let error = #expect(throws: RemoteStoreError.self) { try open(url, environment: environment) }
            #expect(error?.code == .unsupported && error?.message.contains("segment") == true, "\(url)")
        }
        _ = try open("s3://bucket/a/..b/.c?endpoint=http://127.0.0.1:9000", environment: environment)
        let withUser = #expect(throws: RemoteStoreError.self) {
            try open("s3://bucket/p?endpoint=http://someone:hunter2@127.0.0.1:9000", environment: environment)
        }
        #expect(withUser?.code == .unsupported && withUser?.message.contains("user or password") == true)
        #expect(withUser.map { "\($0)" }?.contains("hunter2") == false)
    }

    @Test func environmentKeysComeFirstThenTheProfileOfTheSharedFiles() throws {
        let folder = try TemporaryDirectory(prefix: "s3-config")
        defer { folder.remove() }
        let credentials = folder.appending("credentials")
        let config = folder.appending("config")
        try """
            [default]
            aws_access_key_id = AKIADEFAULT00000
            aws_secret_access_key = default-secret
            [work]
            aws_access_key_id = AKIAWORK00000000
            aws_secret_access_key = \(secret)
            aws_session_token = \(token)
            """.write(to: credentials, atomically: true, encoding: .utf8)
        try """
            [default]
            region = us-west-2
            [profile work]
            region = eu-north-1
            endpoint_url = https://storage.example.net
            """.write(to: config, atomically: true, encoding: .utf8)
        let files = ["AWS_SHARED_CREDENTIALS_FILE": credentials.path, "AWS_CONFIG_FILE": config.path, "HOME": "/nonexistent"]

        let fromEnvironment = try open("s3://bucket/p", environment: files.merging(["AWS_ACCESS_KEY_ID": "AKIAENV000000000", "AWS_SECRET_ACCESS_KEY": "env-secret"]) { $1 })
        #expect(fromEnvironment.client.settings.credentials.accessKeyID == "AKIAENV000000000")
        #expect(fromEnvironment.region == "us-west-2")

        let byDefault = try open("s3://bucket/p", environment: files)
        #expect(byDefault.client.settings.credentials.accessKeyID == "AKIADEFAULT00000")

        let work = try open("s3://bucket/p", environment: files.merging(["AWS_PROFILE": "work"]) { $1 })
        #expect(work.client.settings.credentials.accessKeyID == "AKIAWORK00000000")
        #expect(work.client.settings.credentials.sessionToken == token)
        #expect(work.region == "eu-north-1")
        #expect(work.endpoint.absoluteString == "https://storage.example.net")
        #expect(work.client.settings.pathStyle, "a custom endpoint defaults to path style")

        let explicit = try open("s3://bucket/p?profile=work", environment: files.merging(["AWS_ACCESS_KEY_ID": "AKIAENV000000000", "AWS_SECRET_ACCESS_KEY": "x"]) { $1 })
        #expect(explicit.client.settings.credentials.accessKeyID == "AKIAWORK00000000", "an explicit profile wins over the environment, as --profile does")
    }

    @Test func missingCredentialsSayWhereTheyWereLookedFor() throws {
        let error = #expect(throws: RemoteStoreError.self) {
            try open("s3://bucket/p", environment: ["HOME": "/nonexistent", "AWS_CONFIG_FILE": "/dev/null", "AWS_SHARED_CREDENTIALS_FILE": "/dev/null"])
        }
        #expect(error?.code == .authenticationFailed)
        #expect(error?.message.contains("AWS_ACCESS_KEY_ID") == true && error?.message.contains("~/.aws/credentials") == true)
    }

    @Test func secretsAndTokensAreRedactedEverywhere() throws {
        let keys = S3Credentials(accessKeyID: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: secret, sessionToken: token)
        var configuration = S3RemoteStore.Configuration(bucket: "bucket", prefix: "p", credentials: .keys(keys))
        configuration.region = "us-east-1"
        let store = try S3RemoteStore(configuration: configuration, environment: [:])
        var dumped = ""
        dump(store.configuration, to: &dumped)
        for text in ["\(keys)", "\(store.configuration)", String(reflecting: keys)] {
            #expect(!text.contains(secret) && !text.contains(token), "\(text)")
            #expect(!text.contains("AKIAIOSFODNN7EXAMPLE"))
        }
        #expect("\(keys)".contains("****MPLE"))
        let secretSettings = RemoteStoreConfiguration(
            url: try #require(URL(string: "s3://bucket/p")), settings: ["access-key-id": "AKIAIOSFODNN7EXAMPLE"],
            secrets: ["secret-access-key": secret, "session-token": token]
        )
        #expect(!"\(secretSettings)".contains(secret) && !"\(secretSettings)".contains(token))
    }

    @Test func keysAndQueriesAreEncodedAsSigV4Signs() {
        #expect(S3Key.uriEncode("a b/c~d_e-f.g+h?é", keepingSlashes: true) == "a%20b/c~d_e-f.g%2Bh%3F%C3%A9")
        #expect(S3Key.uriEncode("a/b", keepingSlashes: false) == "a%2Fb")
        #expect(S3Key.canonicalQuery([("uploads", ""), ("delimiter", "/"), ("continuation-token", "1+2=")])
            == "continuation-token=1%2B2%3D&delimiter=%2F&uploads=")
    }

    @Test func errorBodiesAreParsedForTheCodeAndMessage() throws {
        let body = Data("<?xml version=\"1.0\"?><Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>".utf8)
        let document = try #require(S3XMLElement.parse(body))
        let error = RemoteStoreError.s3(
            S3ServiceError(status: 503, code: document.value("Code"), message: document.value("Message")), method: "PUT", path: "x", bucket: "b"
        )
        #expect(error.code == .rateLimited && error.isRetryable)
        #expect(error.message.contains("Please reduce your request rate."))
        for (code, expected) in [("InternalError", RemoteStoreError.Code.unavailable), ("RequestTimeout", .timedOut), ("InvalidAccessKeyId", .authenticationFailed), ("AccessDenied", .permissionDenied)] {
            #expect(RemoteStoreError.s3(S3ServiceError(status: 400, code: code, message: nil), method: "GET", path: nil, bucket: "b").code == expected)
        }
        #expect(RemoteStoreError.s3(S3ServiceError(status: 500, code: nil, message: nil), method: "HEAD", path: nil, bucket: "b").isRetryable)
    }

    /// Foundation's XMLParser traps on a name that is not valid UTF-8 and crashes on a processing
    /// instruction without data (found by fuzzing this parser; see `XMLParser.forServerAnswer`):
    /// such a body is no document, and no listing. Comments and the XML declaration are fine.
    @Test func bodiesThatWouldCrashFoundationAreNoDocument() {
        #expect(S3XMLElement.parse(Data("<Lis<?TOX_TES?>\n<my".utf8)) == nil)
        #expect(S3XMLElement.parse(Data("<?xml version=\"1.0\"?><a><?x?></a>".utf8)) == nil)
        #expect(S3XMLElement.parse(Data("<?xml CER=.0\"\n\"><?o?>\n<ListBucketResult/>".utf8)) == nil, "a PI after a broken declaration")
        // UTF-16 without a BOM, which libxml2 would guess from the NUL bytes: `<?x?>`.
        #expect(S3XMLElement.parse(Data([0x3C, 0x00, 0x3F, 0x00, 0x78, 0x00, 0x3F, 0x00, 0x3E, 0x00])) == nil)
        // A declared encoding in which these UTF-8 bytes read `<?Ca?>` is not obeyed.
        let ebcdic = Data(#"<?xml version="1.0" encoding="IBM037"?>"#.utf8) + Data("<a>Lo\u{C1}on</a>".utf8)
        #expect(S3XMLElement.parse(ebcdic)?.text == "Lo\u{C1}on")
        #expect(S3XMLElement.parse(Data("\u{FEFF}<?xml version=\"1.0\" encoding=\"UTF-8\"?><!-- c --><a><![CDATA[x]]></a>".utf8))?.name == "a")
        let body = Data(Array("<ListBucketResult><".utf8) + [0xCF, 0xCF] + Array("IsTruncated>false</IsTruncated></ListBucketResult>".utf8))
        #expect(S3XMLElement.parse(body) == nil)
        #expect(S3XMLElement.parse(Data([0x3C, 0x61, 0xFF, 0x3E])) == nil)
        #expect {
            _ = try S3ListPage(parsing: body, for: "dir")
        } throws: { error in
            (error as? RemoteStoreError)?.code == .invalidResponse
        }
    }
}

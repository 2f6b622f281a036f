import RemoteProtocol
import Testing

struct RemoteStoreErrorTests {
    @Test func onlyTransientCodesAreRetryable() {
        let retryable: [RemoteStoreError.Code] = [.unavailable, .timedOut, .rateLimited]
        let permanent: [RemoteStoreError.Code] = [
            .notFound, .alreadyExists, .notADirectory, .isADirectory, .permissionDenied, .authenticationFailed,
            .hostKeyUnknown, .hostKeyMismatch, .insufficientStorage, .invalidResponse, .invalidPath, .unsupported,
            .localFile, .io, .unknown,
        ]
        for code in retryable { #expect(RemoteStoreError(code).isRetryable, "\(code)") }
        for code in permanent { #expect(!RemoteStoreError(code).isRetryable, "\(code)") }
    }

    @Test func codesMatchErrorsInCatchClauses() {
        func classify(_ error: any Error) -> String {
            switch error {
            case RemoteStoreError.Code.notFound: return "missing"
            case RemoteStoreError.Code.timedOut: return "slow"
            default: return "other"
            }
        }
        #expect(classify(RemoteStoreError(.notFound)) == "missing")
        #expect(classify(RemoteStoreError(.timedOut)) == "slow")
        #expect(classify(RemoteStoreError(.io)) == "other")
        #expect(classify(CancellationError()) == "other")
    }

    @Test func descriptionNamesCodePathMessageAndCause() {
        struct Cause: Error, Sendable, CustomStringConvertible { var description: String { "errno 2" } }
        let error = RemoteStoreError(.notFound, path: "a/b", message: "no such file", underlying: Cause())
        #expect(error.description == "notFound at 'a/b': no such file (errno 2)")
        #expect(RemoteStoreError(.io).description == "io")
    }

    @Test func recordsWhereItWasCreated() {
        let error = RemoteStoreError(.io)
        #expect(error.location.hasPrefix("RemoteProtocolTests/RemoteStoreErrorTests.swift:"))
    }
}

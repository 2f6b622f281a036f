import RemoteProtocol
import Testing

/// Expects `body` to throw a ``RemoteStoreError`` with `code`, recording an issue at the
/// caller's line otherwise.
func expectRemoteError(
    _ code: RemoteStoreError.Code,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () async throws -> Void
) async {
    let error = await #expect(throws: RemoteStoreError.self, sourceLocation: sourceLocation) { try await body() }
    #expect(error?.code == code, "\(error.map { "\($0)" } ?? "no error")", sourceLocation: sourceLocation)
}

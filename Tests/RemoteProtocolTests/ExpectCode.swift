import RemoteProtocol
import Testing

/// Expects `body` to throw a ``RemoteStoreError`` with `code`.
func expectCode(
    _ code: RemoteStoreError.Code,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () async throws -> Void
) async {
    do {
        try await body()
        Issue.record("expected a \(code) error, but nothing was thrown", sourceLocation: sourceLocation)
    } catch let error as RemoteStoreError {
        #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
    } catch {
        Issue.record("expected a \(code) error, got \(error)", sourceLocation: sourceLocation)
    }
}

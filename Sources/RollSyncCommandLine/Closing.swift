/// Runs `body`, then `cleanup`, whether `body` returned or threw: an asynchronous `defer`, for
/// what must be closed before the process exits.
func closing<Result>(after body: () async throws -> Result, with cleanup: () async -> Void) async throws -> Result {
    let result: Result
    do {
        result = try await body()
    } catch {
        await cleanup()
        throw error
    }
    await cleanup()
    return result
}

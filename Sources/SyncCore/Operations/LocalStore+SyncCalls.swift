extension LocalStore {
    /// Runs a local database call of a sync off the cooperative pool (``perform(_:)``), wrapping
    /// its errors in ``SyncError/Code/local``.
    func performForSync<Result: Sendable>(_ body: @escaping @Sendable () throws -> Result) async throws -> Result {
        try await perform { try SyncError.local("the local database failed", body) }
    }
}

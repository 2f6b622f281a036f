import RemoteProtocol

extension EncryptingCodecProvider {
    /// Changes the password of `applicationID`'s encrypted data in `store`.
    ///
    /// Only the data key's wrapping changes: the key (the one `format.json` records) is unwrapped
    /// with `oldPassword`, wrapped again with `newPassword` (fresh salt, this provider's
    /// ``keyDerivation``) under a generation above every key file's, written as a new key file,
    /// and the older key files are deleted. No data file is
    /// re-encrypted or uploaded, and other clients keep working with their cached key; clients that
    /// join later need `newPassword`. Someone who knew the old password and read the data key
    /// keeps that key: a password change is not a revocation.
    /// - Throws: ``SyncError/Code/wrongPassword`` if `oldPassword` is wrong (nothing changes),
    ///   ``SyncError/Code/notRegistered`` if the data is not encrypted, ``SyncError/Code/remote``
    ///   for storage failures (the old password then still works).
    public func changePassword(
        of applicationID: SyncIdentifier,
        in store: any RemoteStore,
        from oldPassword: EncryptionPassword,
        to newPassword: EncryptionPassword
    ) async throws {
        let directory = RemoteKeyDirectory(store: store, applicationID: applicationID)
        guard let current = try await directory.currentName(of: directory.recordedDataKeyID()),
            let newest = try await directory.currentName()
        else {
            throw SyncError(.notRegistered, "the remote data of \(applicationID) is not encrypted; there is no password to change")
        }
        let dataKey = try await unwrap(current, in: directory, with: oldPassword)
        // Above every key file, so clients that pick the newest of any key pick this one too.
        let wrapped = try await WrappedDataKey.wrap(
            dataKey,
            password: newPassword,
            parameters: keyDerivation,
            generation: newest.generation + 1,
            applicationID: applicationID
        )
        try await directory.publish(wrapped, keyID: dataKey.id)
        try keyStore.save(dataKey, applicationID: applicationID)
    }
}

import Foundation
import RemoteProtocol

/// The codec provider of applications that may be encrypted: it makes the encryption decision at
/// first registration, unlocks encrypted data with the cached key or the password, and changes
/// the password.
///
/// ```swift
/// let provider = EncryptingCodecProvider(
///     keyStore: DataKeyFileStore(directory: applicationSupport.appendingPathComponent("Keys")),
///     decisions: EncryptionDecisions(newApplicationPassword: { _ in password },
///                                    existingApplicationPassword: { _, _ in password }))
/// let application = ApplicationSyncManager(store: store, applicationID: id, device: device, encryption: provider)
/// ```
///
/// - **New remote data**: ``EncryptionDecisions/newApplicationPassword`` decides. With a password, a
///   random 256-bit data key is created, wrapped with a key derived from the password by scrypt
///   (``keyDerivation``), written to `<appID>/Encryption/`, and cached locally; every other file is
///   then encrypted (see Docs/RemoteFormat.md, "Encryption"). Without one, files are stored as they are.
/// - **Existing remote data**: unencrypted data is read as it is, unless it shows signs of having
///   been encrypted (a key file in `Encryption/`, or a key cached here), which is refused as a
///   possible downgrade (``SyncError/Code/corruptRemoteData``). Encrypted data is opened with
///   the key cached in ``keyStore`` when its identifier matches the current key file (one `list`
///   request, no password); otherwise ``EncryptionDecisions/existingApplicationPassword`` is asked.
/// - **Errors**: ``SyncError/Code/passwordRequired`` when no password is given,
///   ``SyncError/Code/wrongPassword`` when it does not unlock the key (register again to retry),
///   ``SyncError/Code/corruptRemoteData`` when the key file is missing or malformed. No message
///   ever contains a password or a key.
public struct EncryptingCodecProvider: RemoteCodecProvider {
    /// Where unwrapped data keys are cached on this client.
    public let keyStore: DataKeyFileStore
    /// The application's answers.
    public let decisions: EncryptionDecisions
    /// The key-derivation cost of passwords this client sets (reading uses the stored parameters).
    public let keyDerivation: ScryptParameters

    /// A provider caching keys in `keyStore`, asking `decisions`, and deriving keys of new
    /// passwords with `keyDerivation` (keep ``ScryptParameters/recommended`` outside tests).
    public init(
        keyStore: DataKeyFileStore,
        decisions: EncryptionDecisions = EncryptionDecisions(),
        keyDerivation: ScryptParameters = .recommended
    ) {
        self.keyStore = keyStore
        self.decisions = decisions
        self.keyDerivation = keyDerivation
    }

    package func codecForNewApplication(layout: ApplicationLayout, store: any RemoteStore) async throws
        -> (codec: any RemoteFileCodec, encrypted: Bool, dataKeyID: String?)
    {
        let applicationID = try SyncIdentifier(layout.root.name)
        guard let password = await decisions.newApplicationPassword(applicationID) else {
            return (PlaintextCodec(), false, nil)
        }
        // A key file left by an interrupted creation (format.json is written after this) is
        // superseded: the new one takes the next generation, so it is current, and the stale one
        // is deleted once this client's format.json is created (settleNewApplication): until
        // then it may be another client's, creating the same application at this moment.
        let directory = RemoteKeyDirectory(store: store, applicationID: applicationID)
        let generation = (try await directory.currentName()?.generation ?? 0) + 1
        let dataKey = DataKey.random()
        let wrapped = try await WrappedDataKey.wrap(
            dataKey,
            password: password,
            parameters: keyDerivation,
            generation: generation,
            applicationID: applicationID
        )
        try await directory.publish(wrapped, keyID: dataKey.id, replacingOlder: false)
        try keyStore.save(dataKey, applicationID: applicationID)
        return (EncryptingCodec(dataKey: dataKey), true, dataKey.id.hex)
    }

    /// The winner deletes the key files older than its own (left by interrupted creations); a
    /// client that lost the race to create the application deletes its own key file, so the
    /// winner's stays the current one.
    package func settleNewApplication(
        _ codec: any RemoteFileCodec, won: Bool, layout: ApplicationLayout, store: any RemoteStore
    ) async throws {
        guard let ownKey = (codec as? EncryptingCodec)?.dataKey.id else { return }
        let directory = RemoteKeyDirectory(store: store, applicationID: try SyncIdentifier(layout.root.name))
        if won {
            guard let own = try await directory.names().filter({ $0.keyID == ownKey }).max() else { return }
            try await directory.deleteKeys { $0 < own }
        } else {
            try await directory.deleteKeys { $0.keyID == ownKey }
        }
    }

    package func codec(forExisting format: RemoteFormatFile, layout: ApplicationLayout, store: any RemoteStore) async throws
        -> any RemoteFileCodec
    {
        let applicationID = try SyncIdentifier(layout.root.name)
        let directory = RemoteKeyDirectory(store: store, applicationID: applicationID)
        // The key format.json records: a key file of another key can only be a creation race's
        // loser's, about to be deleted.
        let currentName = try await directory.currentName(of: format.dataKeyID)
        guard format.encrypted else {
            try refuseDowngrade(applicationID, keyFile: currentName, layout: layout)
            return PlaintextCodec()
        }
        guard let current = currentName else {
            throw SyncError(
                .corruptRemoteData,
                "the remote data of \(applicationID) is encrypted, but \(layout.encryption) holds no wrapped data key"
                    + (format.dataKeyID.map { " of the key \($0) format.json names" } ?? "")
            )
        }
        let cached = keyStore.load(applicationID: applicationID)
        if let cached, cached.id == current.keyID {
            return EncryptingCodec(dataKey: cached)
        }
        let reason: EncryptionDecisions.PasswordRequestReason = cached == nil ? .noCachedKey : .cachedKeyNoLongerMatches
        guard let password = await decisions.existingApplicationPassword(applicationID, reason) else {
            throw SyncError(.passwordRequired, Self.passwordRequiredMessage(applicationID, reason: reason, current: current))
        }
        let dataKey = try await unwrap(current, in: directory, with: password)
        try keyStore.save(dataKey, applicationID: applicationID)
        return EncryptingCodec(dataKey: dataKey)
    }

    /// Unwraps the data key of the key file `name` with `password`.
    /// - Throws: ``SyncError/Code/wrongPassword`` if the password does not unlock it.
    func unwrap(_ name: WrappedKeyName, in directory: RemoteKeyDirectory, with password: EncryptionPassword) async throws -> DataKey {
        let wrapped = try await directory.read(name)
        guard let dataKey = try await wrapped.unwrap(password: password, applicationID: directory.applicationID) else {
            throw SyncError(
                .wrongPassword,
                "the password does not unlock the data key of \(directory.applicationID) "
                    + "(\(directory.path(of: name))); check it and register again"
            )
        }
        return dataKey
    }

    /// Throws if unencrypted-looking data shows signs of having been encrypted (a key file
    /// remains, or this client holds a key for it): `format.json` may have been altered to make
    /// clients write in clear, so nothing is written until the application decides.
    private func refuseDowngrade(_ applicationID: SyncIdentifier, keyFile: WrappedKeyName?, layout: ApplicationLayout) throws {
        if let keyFile {
            throw SyncError(
                .corruptRemoteData,
                "\(layout.formatFile) says the data of \(applicationID) is not encrypted, but \(layout.encryption) holds "
                    + "the wrapped key \(keyFile); refusing to write in clear"
            )
        }
        if keyStore.load(applicationID: applicationID) != nil {
            throw SyncError(
                .corruptRemoteData,
                "\(layout.formatFile) says the data of \(applicationID) is not encrypted, but this client holds its data "
                    + "key; refusing to write in clear. If the remote data was deliberately created again without "
                    + "encryption, remove the cached key (DataKeyFileStore.remove) and register again"
            )
        }
    }

    private static func passwordRequiredMessage(
        _ applicationID: SyncIdentifier,
        reason: EncryptionDecisions.PasswordRequestReason,
        current: WrappedKeyName
    ) -> String {
        switch reason {
        case .noCachedKey:
            "the remote data of \(applicationID) is encrypted; supply its password to register this client"
        case .cachedKeyNoLongerMatches:
            "the remote data of \(applicationID) is now encrypted with data key \(current.keyID), not the key this "
                + "client cached (its remote data was created again); supply the password to register this client"
        }
    }
}

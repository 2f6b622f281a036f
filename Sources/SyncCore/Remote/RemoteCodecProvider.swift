import RemoteProtocol

/// Chooses the codec every file of an application passes through: the seam encryption plugs into.
///
/// ``ApplicationSyncManager`` asks its provider once per registration: when it creates the
/// application's remote data, ``codecForNewApplication(layout:store:)`` decides whether the data
/// is encrypted (and may write what it needs under ``ApplicationLayout/encryption``, such as a
/// wrapped key); when the data exists, ``codec(forExisting:layout:store:)`` opens it (for example
/// after checking a password) or throws a ``SyncError`` that says why it cannot.
package protocol RemoteCodecProvider: Sendable {
    /// The codec for remote data this client is creating, whether that codec encrypts, and the id
    /// of its data key (both recorded in `format.json`).
    func codecForNewApplication(layout: ApplicationLayout, store: any RemoteStore) async throws
        -> (codec: any RemoteFileCodec, encrypted: Bool, dataKeyID: String?)

    /// The codec for existing remote data described by `format`.
    func codec(forExisting format: RemoteFormatFile, layout: ApplicationLayout, store: any RemoteStore) async throws
        -> any RemoteFileCodec

    /// Called once `format.json` of a new application is decided: `won` if this client created it
    /// with `codec` (from ``codecForNewApplication(layout:store:)``), false if another client
    /// creating the same application at the same moment created it first (then this client opens
    /// the winner's data with ``codec(forExisting:layout:store:)``). A provider removes here what
    /// it wrote for the losing codec. The default does nothing.
    func settleNewApplication(_ codec: any RemoteFileCodec, won: Bool, layout: ApplicationLayout, store: any RemoteStore) async throws
}

extension RemoteCodecProvider {
    package func settleNewApplication(
        _ codec: any RemoteFileCodec, won: Bool, layout: ApplicationLayout, store: any RemoteStore
    ) async throws {}
}

/// The provider of unencrypted applications: files are stored as they are, and encrypted remote
/// data is refused with ``SyncError/Code/unsupportedFormat``.
package struct PlaintextCodecProvider: RemoteCodecProvider {
    /// Creates the provider.
    package init() {}

    package func codecForNewApplication(layout: ApplicationLayout, store: any RemoteStore) async throws
        -> (codec: any RemoteFileCodec, encrypted: Bool, dataKeyID: String?)
    {
        (PlaintextCodec(), false, nil)
    }

    package func codec(forExisting format: RemoteFormatFile, layout: ApplicationLayout, store: any RemoteStore) async throws
        -> any RemoteFileCodec
    {
        guard !format.encrypted else {
            throw SyncError(
                .unsupportedFormat,
                "the remote data at \(layout.root) is encrypted; register with a codec provider that can decrypt it"
            )
        }
        return PlaintextCodec()
    }
}

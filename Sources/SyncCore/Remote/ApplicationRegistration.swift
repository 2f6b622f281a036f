import RemoteProtocol

/// The outcome of registering a client with an application's remote data: what every document
/// operation of that application needs.
public struct ApplicationRegistration: Sendable {
    /// The application's identifier.
    public let applicationID: SyncIdentifier
    /// This client's identifier.
    public let clientID: SyncIdentifier
    /// Where the application's files live.
    package let layout: ApplicationLayout
    /// The remote format found (or written).
    package let format: RemoteFormatFile
    /// True if this registration created the application's remote data.
    public let createdApplication: Bool
    /// True if this registration added this client to the application.
    public let addedClient: Bool

    /// The store and the codec every remote file goes through.
    let remote: CodedRemote
}

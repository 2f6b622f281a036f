import Foundation

/// One client of an application, as listed by ``ApplicationSyncManager/clients()``.
public struct ClientSummary: Sendable, Equatable {
    /// The client's device info (identifier, description, user info, registration date).
    public var device: DeviceInfo
    /// The documents it is registered with (it has a change-set directory there), sorted.
    public var documents: [SyncIdentifier]
}

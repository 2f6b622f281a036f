import Foundation

/// The content of `ClientDevices/<client>/deviceInfo.json`: who a client is.
public struct DeviceInfo: Codable, Sendable, Equatable {
    /// The client's identifier.
    public var clientID: SyncIdentifier
    /// A description for people, such as "Anna's laptop".
    public var description: String
    /// Free-form information the application attaches.
    public var userInfo: [String: String]
    /// When the client registered with the application.
    public var registeredAt: Date

    /// Describes a client (registering now, unless `registeredAt` says otherwise).
    public init(clientID: SyncIdentifier, description: String, userInfo: [String: String] = [:], registeredAt: Date = Date()) {
        self.clientID = clientID
        self.description = description
        self.userInfo = userInfo
        self.registeredAt = registeredAt
    }
}

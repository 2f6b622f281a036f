import Foundation

/// One `<response>` of a WebDAV 207 Multi-Status body, with the properties of its successful
/// propstats only.
struct MultistatusEntry: Sendable, Equatable {
    /// The href exactly as the server sent it (still percent-encoded, maybe absolute).
    var href: String
    /// True if a 2xx propstat's `resourcetype` contains `collection`.
    var isCollection = false
    /// `getcontentlength` from a 2xx propstat.
    var contentLength: Int64?
    /// `getlastmodified` from a 2xx propstat, if it parsed.
    var lastModified: Date?
    /// `getetag` from a 2xx propstat, as sent.
    var etag: String?
    /// A response-level `<status>` (used by servers for hrefs that have no properties at all).
    var status: Int?
}

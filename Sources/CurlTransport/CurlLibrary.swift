import CCurl

/// libcurl's process-wide initialisation, done once before the first handle is created.
package enum CurlLibrary {
    /// True if `curl_global_init` succeeded. Evaluated once, thread-safely, on first use.
    package static let isInitialized: Bool = curl_global_init(Int(CURL_GLOBAL_ALL)) == CURLE_OK
}

import CCurl

/// libcurl's process-wide initialisation, done once before the first handle is created.
enum CurlLibrary {
    /// True if `curl_global_init` succeeded. Evaluated once, thread-safely, on first use.
    static let isInitialized: Bool = curl_global_init(Int(CURL_GLOBAL_ALL)) == CURLE_OK
}

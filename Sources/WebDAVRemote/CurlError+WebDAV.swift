import CurlTransport

/// The libcurl failure kept as the ``RemoteProtocol/RemoteStoreError/underlying`` error of this
/// store's transport errors (defined with the curl code both libcurl-based backends share).
public typealias CurlError = CurlTransport.CurlError

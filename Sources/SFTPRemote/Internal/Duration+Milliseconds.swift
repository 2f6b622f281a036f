extension Duration {
    /// The duration in whole milliseconds (libssh2 and poll(2) take milliseconds).
    var wholeMilliseconds: Int {
        let (seconds, attoseconds) = components
        return Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000)
    }
}

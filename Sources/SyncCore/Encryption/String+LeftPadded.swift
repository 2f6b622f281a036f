extension String {
    /// The string with leading zeros up to `width` characters (unchanged if already that long).
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}

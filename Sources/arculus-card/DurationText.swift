extension Duration {
    /// `1 s`, `0.6 s`, `2.25 s`: seconds to the millisecond, as the command line prints a wait.
    var secondsText: String {
        let (seconds, attoseconds) = components
        let milliseconds = seconds * 1000 + attoseconds / 1_000_000_000_000_000
        var fraction = String(milliseconds % 1000 + 1000).dropFirst()
        while fraction.hasSuffix("0") { fraction = fraction.dropLast() }
        return String(milliseconds / 1000) + (fraction.isEmpty ? "" : "." + fraction) + " s"
    }
}

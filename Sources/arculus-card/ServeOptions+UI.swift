extension ServeOptions {
    /// `--ui [127.0.0.1:PORT]`: where the card page listens (port 0: one the system picks).
    struct PageAddress: Equatable {
        var port: UInt16
    }

    /// `arguments` with `--ui`'s optional address taken out (`--ui ADDRESS` and `--ui=ADDRESS`
    /// become `--ui`, a flag to the parser), and that address: nil without `--ui`, port 0 with a
    /// bare one. The address is the word after `--ui` when that is not an option.
    static func pageAddress(in arguments: [String]) throws(UsageError) -> (arguments: [String], page: PageAddress?) {
        var rest: [String] = []
        var address: String?
        var found = false
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if argument == "--" {
                rest += arguments[(index - 1)...]
                break
            }
            guard argument == "--ui" || argument.hasPrefix("--ui=") else {
                rest.append(argument)
                continue
            }
            if found { throw UsageError("--ui is given twice") }
            found = true
            rest.append("--ui")
            if argument.hasPrefix("--ui=") {
                address = String(argument.dropFirst("--ui=".count))
            } else if index < arguments.count, !arguments[index].hasPrefix("-") {
                address = arguments[index]
                index += 1
            }
        }
        guard found else { return (rest, nil) }
        guard let address else { return (rest, PageAddress(port: 0)) }
        return (rest, try PageAddress(parsing: address))
    }
}

extension ServeOptions.PageAddress {
    /// `127.0.0.1:PORT`, `:PORT` or `PORT`: the page is never on the network.
    init(parsing text: String) throws(UsageError) {
        let colon = text.lastIndex(of: ":")
        let host = colon.map { text[..<$0] } ?? ""
        guard host == "127.0.0.1" || host.isEmpty else {
            throw UsageError("--ui listens on loopback only: give 127.0.0.1:PORT, not '\(text)'")
        }
        guard let port = UInt16(colon.map { text[text.index(after: $0)...] } ?? text[...]) else {
            throw UsageError("--ui wants a port from 0 to 65535 in '\(text)'")
        }
        self.port = port
    }
}

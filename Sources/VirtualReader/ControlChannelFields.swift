import JSONSupport

/// Typed reading of a control-protocol object's members, with errors that name the member and
/// where it stands (`pin: retries must be a whole number`).
struct ControlChannelFields {
    let members: [String: JSONValue]
    /// What the object is, for messages: the op (`pin`) or the member (`fault`, `credential`).
    let context: String

    init(_ members: [String: JSONValue], context: String) {
        self.members = members
        self.context = context
    }

    /// Rejects members other than `names` (and `op`, `tag`), so that a typo is an error.
    func allow(_ names: Set<String>) throws(ControlChannelError) {
        let unknown = members.keys.filter { !names.contains($0) && $0 != "op" && $0 != "tag" }.sorted()
        guard unknown.isEmpty else {
            throw .badRequest("\(context) has no member \(unknown.joined(separator: ", "))"
                              + (names.isEmpty ? "" : " (it takes \(names.sorted().joined(separator: ", ")))"))
        }
    }

    /// The member, nil when it is missing or null.
    func value(_ name: String) -> JSONValue? {
        guard let value = members[name], value != .null else { return nil }
        return value
    }

    func string(_ name: String) throws(ControlChannelError) -> String? {
        guard let value = value(name) else { return nil }
        guard let text = value.stringValue else { throw .badRequest("\(context): \(name) must be a string") }
        return text
    }

    func number(_ name: String) throws(ControlChannelError) -> Double? {
        guard let value = value(name) else { return nil }
        guard let number = value.numberValue else { throw .badRequest("\(context): \(name) must be a number") }
        return number
    }

    /// A number of seconds in 0...3600 (`delay`, `away`).
    func seconds(_ name: String) throws(ControlChannelError) -> Double? {
        guard let seconds = try number(name) else { return nil }
        guard (0...3600).contains(seconds) else { throw .badRequest("\(name) must be 0 to 3600 seconds") }
        return seconds
    }

    func int(_ name: String) throws(ControlChannelError) -> Int? {
        guard let value = value(name) else { return nil }
        guard let number = value.intValue else { throw .badRequest("\(context): \(name) must be a whole number") }
        return number
    }

    /// A whole number in `UInt32` (counters); `what` names it in the error.
    func uint32(_ name: String, what: String) throws(ControlChannelError) -> UInt32? {
        guard let number = try int(name) else { return nil }
        guard let value = UInt32(exactly: number) else { throw .badRequest("\(what) must be 0 to \(UInt32.max)") }
        return value
    }

    func bool(_ name: String) throws(ControlChannelError) -> Bool? {
        guard let value = value(name) else { return nil }
        if let flag = value.boolValue { return flag }
        if let number = value.intValue, number == 0 || number == 1 { return number == 1 }
        throw .badRequest("\(context): \(name) must be true or false")
    }

    func object(_ name: String, required: Bool) throws(ControlChannelError) -> [String: JSONValue]? {
        guard let value = value(name) else {
            if required { throw .badRequest("\(context) needs \(name) (an object)") }
            return nil
        }
        guard let object = value.objectValue else { throw .badRequest("\(context): \(name) must be an object") }
        return object
    }

    /// Bytes from `name` (base64url) or `nameHex`.
    func bytes(_ name: String) throws(ControlChannelError) -> [UInt8]? {
        if let hex = try string(name + "Hex") {
            guard let bytes = [UInt8](hex: hex) else { throw .badRequest("\(context): \(name)Hex is not hex") }
            return bytes
        }
        return try base64URL(name)
    }

    /// Bytes from `name`, base64url only (the WebDriver members: `credentialId`, `userHandle`, …).
    func base64URL(_ name: String) throws(ControlChannelError) -> [UInt8]? {
        guard let text = try string(name) else { return nil }
        guard let bytes = Base64URL.decode(text) else {
            throw .badRequest("\(context): \(name) is not base64url")
        }
        return bytes
    }

    /// The one value two synonymous members give (`discoverable` / `isResidentCredential`); an
    /// error when both are given and differ.
    func either<Value: Equatable>(_ first: String, _ second: String,
                                  _ read: (String) throws(ControlChannelError) -> Value?) throws(ControlChannelError) -> Value? {
        let a = try read(first)
        let b = try read(second)
        if let a, let b, a != b { throw .badRequest("\(context): \(first) and \(second) disagree (give one)") }
        return a ?? b
    }
}

import CBOR
import FIDOWire

/// Positional judging (behaviour.judging `positional`, Docs/Profiles.md "Judging order"): a
/// request read the way a card that parses in one pass does, never judging the body as a whole.
///
/// 1. The map's head: no map of definite length there (another item, an indefinite-length map, a
///    break) is CTAP2_ERR_CBOR_UNEXPECTED_TYPE.
/// 2. Its member count below the command's minimum: CTAP2_ERR_MISSING_PARAMETER.
/// 3. The members in the order sent, each judged completely — its key, its CBOR kind, its content
///    (an entity's members included) — before the next is looked at. Keys are read as one byte
///    (0–23): the required members come first, in ascending order, and any other key in a
///    required member's place is CTAP2_ERR_MISSING_PARAMETER; the optional ones follow in
///    strictly ascending order (else CTAP2_ERR_INVALID_CBOR), an unknown one skipped (or the
///    command's code for it), one with a longer key as behaviour.longMemberKey says.
/// 4. Whatever comes after the last member read is not looked at.
///
/// What passes goes on to the command's usual reading, with the bytes after the map dropped.
struct PositionalJudge {
    let shape: RequestShape
    let behaviour: CardBehaviour
    /// The PIN/UV auth protocols the card supports (for pinUvAuthProtocol judged on sight).
    let protocols: [Int]

    /// The body the usual reading gets (the map as far as it was read), or the status to answer.
    func judge(_ body: ArraySlice<UInt8>) -> Result<ArraySlice<UInt8>, CTAPStatus> {
        guard let (count, afterHead) = Self.mapHead(body) else { return .failure(.cborUnexpectedType) }
        guard count >= shape.minimumCount else { return .failure(.missingParameter) }
        guard body.endIndex - afterHead >= shape.minimumBytesAfterHead else { return .failure(.invalidCBOR) }
        var position = afterHead
        var lastKey = -1
        var seen: Set<Int> = []
        var later: [(MemberShape, CBORValue)] = []
        for index in 0..<count {
            // The body ended before a member its map declared: that member is missing.
            guard position < body.endIndex else { return .failure(.missingParameter) }
            let keyByte = body[position]
            if index < shape.required.count {
                let member = shape.required[index]
                guard Int(keyByte) == member.key else { return .failure(.missingParameter) }
                position += 1
                if let status = judge(member, in: body, at: &position, later: &later) { return .failure(status) }
                lastKey = member.key
                seen.insert(member.key)
                continue
            }
            guard keyByte < 24 else {
                // A key of more than one byte, or not an unsigned integer: no member this card knows.
                if keyByte >> 5 == 0 && behaviour.longMemberKey == .cborUnexpectedType { return .failure(.cborUnexpectedType) }
                if let code = shape.unknownMember { return .failure(code) }
                switch Self.skip(2, in: body, from: position) {
                case .success(let end): position = end
                case .failure(let status): return .failure(status)
                }
                continue
            }
            let key = Int(keyByte)
            guard shape.ascending ? key > lastKey : !seen.contains(key) else { return .failure(.invalidCBOR) }
            lastKey = max(lastKey, key)
            seen.insert(key)
            position += 1
            guard let member = shape.optional.first(where: { $0.key == key }) else {
                if let code = shape.unknownMember { return .failure(code) }
                switch Self.skip(1, in: body, from: position) {
                case .success(let end): position = end
                case .failure(let status): return .failure(status)
                }
                continue
            }
            if let status = judge(member, in: body, at: &position, later: &later) { return .failure(status) }
        }
        for (member, value) in later {
            if let status = member.content?(value) { return .failure(status) }
        }
        return .success(body[body.startIndex..<position])
    }

    /// Judges the value of `member` at `position` (moved past it): its kind, then its content
    /// unless that waits (``MemberShape/deferred``); the status for the first fault, or nil.
    private func judge(_ member: MemberShape, in body: ArraySlice<UInt8>, at position: inout Int,
                       later: inout [(MemberShape, CBORValue)]) -> CTAPStatus? {
        let onSight = member.isProtocol && behaviour.pinUvAuthProtocolCheck == .onSight
        guard position < body.endIndex else { return onSight ? .invalidParameter : member.wrongKind }
        guard member.kind.admits(body[position]) else { return onSight ? .invalidParameter : member.wrongKind }
        let value: CBORValue
        do {
            let (item, rest) = try CBORDecoder.decodePrefix(body[position...])
            value = item
            position = rest.startIndex
        } catch {
            return CTAPStatus(decodingError: error)
        }
        if onSight && !Self.isSupported(value, among: protocols) { return .invalidParameter }
        if member.deferred {
            later.append((member, value))
            return nil
        }
        return member.content?(value)
    }

    /// Whether `value` is a pinUvAuthProtocol number among `protocols`.
    static func isSupported(_ value: CBORValue, among protocols: [Int]) -> Bool {
        guard let number = value.uint64Value, number <= UInt64(Int.max) else { return false }
        return protocols.contains(Int(number))
    }

    /// The member count and where the members start, for a map of definite length at the start
    /// of `body`; nil for anything else.
    static func mapHead(_ body: ArraySlice<UInt8>) -> (count: Int, start: Int)? {
        guard let initial = body.first, initial >> 5 == 5 else { return nil }
        let info = Int(initial & 0x1F)
        let start = body.startIndex + 1
        switch info {
        case 0..<24: return (info, start)
        case 24, 25:
            let width = info == 24 ? 1 : 2
            guard body.endIndex - start >= width else { return nil }
            let count = body[start..<start + width].reduce(0) { $0 << 8 | Int($1) }
            return (count, start + width)
        default: return nil
        }
    }

    /// The end of the next `items` items from `start`, each read whole, or the status for CBOR
    /// that is not well-formed there.
    static func skip(_ items: Int, in body: ArraySlice<UInt8>, from start: Int) -> Result<Int, CTAPStatus> {
        var reader = CBORReader(body[start...])
        do {
            for _ in 0..<items { _ = try reader.skipItem() }
        } catch {
            return .failure(CTAPStatus(decodingError: error))
        }
        return .success(reader.position)
    }
}

import ArculusCard
import Foundation
import PCSC
import Synchronization
import TestSupport
import VirtualReader

/// An emulated card on a vpcd reader through the real pcscd, served in this process by the
/// emulator's own bridge: what the SDK's PC/SC connectors are tested against.
///
/// The slot is `ARCULUS_SDK_SLOT` (default 0, reader "Virtual PCD 00 00"; the PC/SC client's own
/// tests use slot 1 at the same time). Run the suite inside `Tests/isolated.sh` on a shared
/// machine: slot 0 is where a developer keeps a card of their own. A reader that already holds
/// a card, or a card that is not this one answering, is reported, not tested.
final class ServedOnVPCD: @unchecked Sendable {
    /// The reader; pcscd is asked once per process.
    static let vpcd = VPCDReader(slotFrom: "ARCULUS_SDK_SLOT", default: 0) { try? PCSCContext().readers() }
    static var slot: Int { vpcd.slot }
    static var reader: String { vpcd.name }

    let card: VirtualCard
    let bridge: VPCDBridge
    private let exchanges = Locked<[[UInt8]]>([])

    /// Puts `card` on the reader and waits until pcscd sees it and it answers as this card.
    init(_ card: VirtualCard) throws {
        guard Self.vpcd.reachable else { throw TestFailure(Self.vpcd.unavailable) }
        guard try !Self.isPresent() else { throw TestFailure("\(Self.reader) already holds a card: another card process uses vpcd slot \(Self.slot)") }
        self.card = card
        guard let endpoint = VPCDEndpoint.default.slot(Self.slot) else { throw TestFailure("no vpcd slot \(Self.slot)") }
        let log = exchanges
        bridge = VPCDBridge(card: card, endpoint: endpoint) { event in
            if case .exchange(let command, _, _) = event { log.value.withLock { $0.append(command) } }
        }
        bridge.start()
        do {
            try Self.waitFor(present: true)
            try confirmOurs()
        } catch {
            stop()
            throw error
        }
    }

    /// The commands the card answered, in order.
    var commands: [[UInt8]] { exchanges.value.withLock { $0 } }

    /// Takes the card off the reader until ``putBack()``; returns once pcscd sees the reader empty.
    func takeAway() throws {
        bridge.takeOffReader()
        try Self.waitFor(present: false)
    }

    /// Puts the card back; returns once pcscd sees it.
    func putBack() throws {
        bridge.putOnReader()
        try Self.waitFor(present: true)
    }

    /// Ends the bridge (the card leaves the reader); the card may be read after this.
    func stop() {
        bridge.stop()
        bridge.wait()
        try? Self.waitFor(present: false)
    }

    static func isPresent() throws -> Bool {
        let context = try PCSCContext()
        return try context.status(ofReaders: [reader]).first?.isCardPresent == true
    }

    static func waitFor(present: Bool, within seconds: Double = 10) throws {
        let deadline = Date().addingTimeInterval(seconds)
        while try isPresent() != present {
            guard Date() < deadline else { throw TestFailure("pcscd never saw \(reader) \(present ? "with" : "without") the card") }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }

    /// A SELECT of a random AID through pcscd, found in this card's own trace.
    private func confirmOurs() throws {
        let probe: [UInt8] = [0x00, 0xA4, 0x04, 0x00, 0x08] + (0..<8).map { _ in UInt8.random(in: 0...255) } + [0x00]
        // Right after a card appears pcscd may still be powering it: a new connection gets it.
        let deadline = Date().addingTimeInterval(5)
        while !Self.sent(probe) {
            guard Date() < deadline else { throw TestFailure("the card in \(Self.reader) never answered") }
            Thread.sleep(forTimeInterval: 0.1)
        }
        guard commands.contains(probe) else {
            throw TestFailure("the card in \(Self.reader) is not this test's: another card process is on vpcd slot \(Self.slot)")
        }
    }
}

extension ServedOnVPCD {
    /// Whether `apdu` reached the reader's card on a connection of its own.
    static func sent(_ apdu: [UInt8]) -> Bool {
        guard let card = try? PCSCContext().connect(reader: reader) else { return false }
        return (try? card.transmit(apdu)) != nil
    }
}


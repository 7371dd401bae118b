import ArculusSDK
import CTAPClient
import Dispatch
import FIDOWire
import PCSC

/// The card an app finds: the first PC/SC reader, in pcscd's order, holding a card that answers
/// the FIDO applet's SELECT with 9000. A tap waits (until the SDK's tap timeout, or a cancel)
/// for such a card to be put on a reader, as a phone's NFC session waits for a tag.
public struct FirstFIDOReaderConnector: CardConnector {
    public init() {}

    public func connect() async throws(CardTransportError) -> any CardConnection {
        let queue = DispatchQueue(label: "ArculusFidoSDKFramework.discovery")
        let context = try await PCSCCardConnector.onQueue(queue, reader: "any reader") { () throws(PCSCError) in try PCSCContext() }
        while true {
            try PCSCCardConnector.throwIfCancelled()
            let present = try await PCSCCardConnector.onQueue(queue, reader: "any reader") { () throws(PCSCError) -> [String] in
                try context.status(ofReaders: try context.readers()).filter(\.isCardPresent).map(\.reader)
            }
            for reader in present {
                guard let card = try? await PCSCCardConnector.connectShared(context, reader: reader, on: queue) else { continue }
                let transport = PCSCCardTransport(card: card.value, endsTransaction: true)
                let connection = BlockingCardConnection(transport, queue: queue)
                if let answer = try? await connection.transmit(NFCBinding.selectFIDOApplet), answer.suffix(2) == [0x90, 0x00] {
                    return connection
                }
                await connection.close()
            }
            try? await Task.sleep(for: .milliseconds(200))
        }
    }
}

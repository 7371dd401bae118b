import ArculusSDK
import CTAPClient
import Foundation
#if canImport(ArculusFidoConnectors)
import ArculusFidoConnectors
#endif

extension ArculusFido {
    /// An SDK over the card an app would find, as the sample apps create it (`ArculusFido()`):
    ///
    /// | environment | the card |
    /// | --- | --- |
    /// | nothing set | the first PC/SC reader whose card answers the FIDO SELECT (`FirstFIDOReaderConnector`), waited for up to the tap timeout |
    /// | `ARCULUS_FIDO_READER=NAME` | the card on that reader (`PCSCCardConnector`) |
    /// | `ARCULUS_FIDO_CARD_IMAGE=FILE` | the in-process emulated card whose memory is FILE (`VirtualCardConnector`; created with `ARCULUS_FIDO_PROFILE`, a built-in profile name or a profile file, when FILE does not exist). Every `ArculusFido()` of the process shares it |
    /// | `ARCULUS_FIDO_TAP_TIMEOUT=SECONDS` | how long an operation waits for the card (default 30) |
    ///
    /// A setting that cannot be used (both card variables set, an image that cannot be opened,
    /// a time-out that is not a number of seconds up to an hour, an image path that is not a
    /// regular file, a profile file that is not one or is over 1 MiB) is reported by the first
    /// operation, with its variable; nothing is opened or created for it.
    ///
    /// Where the connectors cannot be built (iOS: no PC/SC, no in-process card), every operation
    /// of `ArculusFido()` says to give the SDK a connector: `ArculusFido(card:)` with one over the
    /// app's NFC reader session.
    public convenience init() {
        #if canImport(ArculusFidoConnectors)
        let setting = CardDiscovery(environment: ProcessInfo.processInfo.environment)
        self.init(card: setting.connector, timeouts: setting.timeouts)
        #else
        self.init(card: NoConnectorHere())
        #endif
    }
}

#if !canImport(ArculusFidoConnectors)
/// The card of `ArculusFido()` on a platform without the PC/SC and in-process connectors.
private struct NoConnectorHere: CardConnector {
    func connect() async throws(CardTransportError) -> any CardConnection {
        throw .unsupported("ArculusFido() finds a card through PC/SC or an in-process card image, which this platform has not; give ArculusFido(card:) a CardConnector over your NFC reader session")
    }
}
#endif


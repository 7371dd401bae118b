import Transcript
import VirtualReader

// The Transcript module does not depend on VirtualReader, so the tool declares here that its
// card-shaped types can go on the virtual reader. Both already have `atr`, `powerOn()`,
// `powerOff()`, `reset()` and `transmit(_:)` with the meaning `ReaderCard` asks for.

/// A recording card on the reader: `serve --record FILE` puts this where the card would be,
/// so every power event and exchange is appended to FILE as it happens.
extension TranscriptRecorder: ReaderCard {}

/// A transcript answering as the card on the reader: `serve --stand-in FILE`.
extension TranscriptStandIn: ReaderCard {}

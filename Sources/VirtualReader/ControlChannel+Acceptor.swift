#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension ControlChannel {
    /// Takes new connections: from allowed peers only, within the connection cap and the
    /// descriptor reserve, backing off when descriptors run out (``ConnectionAdmission``).
    struct Acceptor {
        private var admission = ConnectionAdmission(maximumConnections: ControlChannel.maximumConnections,
                                                    reservedDescriptors: ControlChannel.reservedDescriptors)

        /// While out of descriptors: when to try again.
        var resumesAt: ContinuousClock.Instant? { admission.resumesAt }

        /// Whether to poll the listener now.
        mutating func isAccepting(at now: ContinuousClock.Instant) -> Bool {
            admission.isAccepting(at: now)
        }

        /// Accepts one pending connection; nil when there was none, it was refused, or
        /// descriptors ran out (then accepting pauses). `open` counts the connections held.
        mutating func accept(on listener: Int32, open: Int, at now: ContinuousClock.Instant) -> ControlChannelConnection? {
            guard let fd = admission.accept(on: listener, at: now) else { return nil }
            if let refusal = refusal(of: fd, open: open) {
                // One line if the socket takes it now (it is empty: it does), then closed.
                _ = ControlChannelSocket.sendSome(fd, ArraySlice(Array((refusal.answer().text + "\n").utf8)))
                ControlChannelSocket.closeSocket(fd)
                return nil
            }
            return ControlChannelConnection(fd: fd)
        }

        /// Why the new connection `fd` is refused, if it is.
        private func refusal(of fd: Int32, open: Int) -> ControlChannelError? {
            // The socket's mode already keeps others out; this also covers a socket whose
            // directory another user can enter.
            guard let uid = ControlChannelSocket.peerUID(fd), uid == geteuid() || uid == 0 else {
                return .refused("refused: the control socket serves its owner only")
            }
            return admission.refusal(of: fd, open: open, what: "control").map(ControlChannelError.busy)
        }
    }
}

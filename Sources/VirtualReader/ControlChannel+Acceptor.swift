#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension ControlChannel {
    /// Takes new connections: from allowed peers only, within the connection cap and the
    /// descriptor reserve, and — when `accept` itself runs out of descriptors — not again until
    /// a back-off has passed (the pending connection would make `poll` report the listener
    /// ready at once, for ever: a busy loop).
    struct Acceptor {
        /// While out of descriptors: when to try again.
        private(set) var resumesAt: ContinuousClock.Instant?
        private var backOff = Self.firstBackOff

        static let firstBackOff = Duration.milliseconds(100)
        static let longestBackOff = Duration.seconds(2)

        /// Whether to poll the listener now.
        mutating func isAccepting(at now: ContinuousClock.Instant) -> Bool {
            guard let resume = resumesAt else { return true }
            guard now >= resume else { return false }
            resumesAt = nil
            return true
        }

        /// Accepts one pending connection; nil when there was none, it was refused, or
        /// descriptors ran out (then accepting pauses). `open` counts the connections held.
        mutating func accept(on listener: Int32, open: Int, at now: ContinuousClock.Instant) -> ControlChannelConnection? {
            #if canImport(Glibc)
            let fd = Glibc.accept(listener, nil, nil)
            #else
            let fd = Darwin.accept(listener, nil, nil)
            #endif
            guard fd >= 0 else {
                if [EMFILE, ENFILE, ENOBUFS, ENOMEM].contains(errno) {
                    resumesAt = now + backOff
                    backOff = min(backOff * 2, Self.longestBackOff)
                }
                return nil
            }
            backOff = Self.firstBackOff
            ControlChannelSocket.configureAccepted(fd)
            if let refusal = Self.refusal(of: fd, open: open) {
                // One line if the socket takes it now (it is empty: it does), then closed.
                _ = ControlChannelSocket.sendSome(fd, ArraySlice(Array((refusal.answer().text + "\n").utf8)))
                ControlChannelSocket.closeSocket(fd)
                return nil
            }
            return ControlChannelConnection(fd: fd)
        }

        /// Why the new connection `fd` is refused, if it is.
        private static func refusal(of fd: Int32, open: Int) -> ControlChannelError? {
            // The socket's mode already keeps others out; this also covers a socket whose
            // directory another user can enter.
            guard let uid = ControlChannelSocket.peerUID(fd), uid == geteuid() || uid == 0 else {
                return .refused("refused: the control socket serves its owner only")
            }
            if open >= ControlChannel.maximumConnections {
                return .busy("too many control connections (at most \(ControlChannel.maximumConnections) at once): close one and try again")
            }
            // Descriptors are handed out lowest first, so one this high means few are left.
            if let limit = descriptorLimit(), UInt64(fd) + UInt64(ControlChannel.reservedDescriptors) >= limit {
                return .busy("serve is short of file descriptors (its limit is \(limit), and \(ControlChannel.reservedDescriptors) "
                             + "are kept for the card's reader): close a control connection and try again")
            }
            return nil
        }

        /// The process's soft limit of open files, nil when unlimited (read each time: a test
        /// may lower it while the card runs, with prlimit).
        private static func descriptorLimit() -> UInt64? {
            var limit = rlimit()
            #if canImport(Glibc)
            guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return nil }
            #else
            guard getrlimit(RLIMIT_NOFILE, &limit) == 0 else { return nil }
            #endif
            // RLIM_INFINITY is all ones.
            return limit.rlim_cur == rlim_t.max ? nil : UInt64(limit.rlim_cur)
        }
    }
}

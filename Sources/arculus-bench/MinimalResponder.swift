#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import POSIXSupport
import CTAP2

/// `arculus-bench --responder PORT [--atr HEX] [--answer COMMAND=RESPONSE]...`: the smallest
/// card process vpcd can talk to, the baseline of the pcscd round-trip rows.
///
/// It connects to vpcd on 127.0.0.1:PORT as the real bridge does, with the same latency
/// handling (`TCP_NODELAY` once, `TCP_QUICKACK` re-armed after every `recv`, each answer in one
/// `send`), answers get-ATR with the ATR and every APDU with a fixed answer: the one given for
/// exactly that command (hex), else `9000`. No card, no parsing: what is left is pcscd, vpcd
/// and the socket. It runs until vpcd closes the connection or it is killed.
struct MinimalResponder {
    let port: UInt16
    let atr: [UInt8]
    let answers: [[UInt8]: [UInt8]]

    init(arguments: [String]) throws {
        var port: UInt16?
        var atr: [UInt8] = [0x3B, 0x80, 0x80, 0x01, 0x01]
        var answers: [[UInt8]: [UInt8]] = [:]
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            let value = index + 1 < arguments.count ? arguments[index + 1] : ""
            index += 2
            switch argument {
            case "--responder":
                port = UInt16(value)
            case "--atr":
                guard let bytes = [UInt8](hex: value) else { throw BenchError("--atr wants hex") }
                atr = bytes
            case "--answer":
                let parts = value.split(separator: "=", maxSplits: 1).map(String.init)
                guard parts.count == 2, let command = [UInt8](hex: parts[0]), let response = [UInt8](hex: parts[1]),
                      response.count >= 2 else {
                    throw BenchError("--answer wants COMMANDHEX=RESPONSEHEX")
                }
                answers[command] = response
            default:
                throw BenchError("unknown responder option \(argument)")
            }
        }
        guard let port else { throw BenchError("--responder wants a port") }
        self.port = port
        self.atr = atr
        self.answers = answers
    }

    /// Serves one connection; returns when vpcd closes it.
    func run() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw BenchError("socket: \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw BenchError("connect to vpcd port \(port): \(String(cString: strerror(errno)))") }
        var one: Int32 = 1
        setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        func quickAck() {
            var one: Int32 = 1
            setsockopt(descriptor, Int32(IPPROTO_TCP), Int32(TCP_QUICKACK), &one, socklen_t(MemoryLayout<Int32>.size))
        }
        quickAck()

        var buffer = [UInt8](repeating: 0, count: 65_537)
        func readExactly(_ count: Int) -> [UInt8]? {
            var received = 0
            while received < count {
                let result = buffer.withUnsafeMutableBytes {
                    try? POSIX.read(descriptor, into: UnsafeMutableRawBufferPointer(rebasing: $0[received..<count]))
                }
                guard let result, result > 0 else { return nil }
                quickAck()
                received += result
            }
            return Array(buffer[0..<count])
        }
        let success: [UInt8] = [0x90, 0x00]
        while let header = readExactly(2) {
            let length = Int(header[0]) << 8 | Int(header[1])
            guard let message = readExactly(length) else { return }
            let answer: [UInt8]
            if message.count == 1 {
                // Control codes: only get-ATR (04) is answered; a 1-byte APDU never comes from the benchmark.
                guard message[0] == 0x04 else { continue }
                answer = atr
            } else {
                answer = answers[message] ?? success
            }
            let framed = [UInt8(answer.count >> 8), UInt8(answer.count & 0xFF)] + answer
            guard (try? POSIX.sendAll(descriptor, framed)) != nil else { return }
        }
    }
}

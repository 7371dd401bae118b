#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import POSIXSupport

/// pcscd's reader configuration (`/etc/reader.conf.d/*`), read for the vpcd readers it declares:
/// which reader name pcscd gives the card on a given TCP port.
///
/// Each entry (`FRIENDLYNAME "…"`, `DEVICENAME /dev/null:PORT`, `LIBPATH …`) is one load of the
/// vpcd driver with its two slots on PORT and PORT + 1; pcscd names them `FRIENDLYNAME 00 00`
/// and `FRIENDLYNAME 00 01`. (Debian's file has one entry, "Virtual PCD" on 35963. More readers
/// need more entries, each with a friendly name and a copy of the driver library of its own:
/// the driver keeps its slots in one global array, so two entries loading the same library
/// share and overwrite it; see `setup.sh --readers`.)
public struct VPCDReaderConfiguration: Hashable, Sendable {
    /// One vpcd entry.
    public struct Entry: Hashable, Sendable {
        public var friendlyName: String
        /// The port of its slot 0.
        public var port: UInt16
        public var library: String
    }

    /// Slots per entry: the Debian build of vpcd has two.
    public static let slotsPerEntry = 2
    /// vpcd's port when `DEVICENAME` names none.
    public static let defaultPort: UInt16 = 35963
    /// Where pcscd reads its reader configuration.
    public static let defaultDirectory = "/etc/reader.conf.d"

    /// The vpcd entries (those whose library is a vpcd driver), in the order given.
    public var entries: [Entry]

    /// Reads the text of one reader.conf file; lines it does not understand are skipped, as
    /// pcscd skips them.
    public init(parsing text: String) {
        entries = []
        var current: [String: String] = [:]
        func finish() {
            defer { current = [:] }
            guard let name = current["FRIENDLYNAME"], let device = current["DEVICENAME"],
                  let library = current["LIBPATH"], library.contains("vpcd"),
                  let port = Self.port(ofDevice: device) else { return }
            entries.append(Entry(friendlyName: name, port: port, library: library))
        }
        for line in text.split(whereSeparator: \.isNewline) {
            let content = line.prefix { $0 != "#" }
            guard let space = content.firstIndex(where: \.isWhitespace) else { continue }
            let key = String(content[..<space])
            guard ["FRIENDLYNAME", "DEVICENAME", "LIBPATH", "CHANNELID"].contains(key) else { continue }
            var value = content[space...].trimmingWhitespace
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") { value = value.dropFirst().dropLast() }
            if current[key] != nil { finish() }
            current[key] = String(value)
        }
        finish()
    }

    /// Every regular file of `directory`, as pcscd reads them; empty when there is none.
    public static func load(directory: String = defaultDirectory) -> VPCDReaderConfiguration {
        var configuration = VPCDReaderConfiguration(parsing: "")
        guard let folder = opendir(directory) else { return configuration }
        defer { closedir(folder) }
        var names: [String] = []
        while let entry = readdir(folder) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if !name.hasPrefix(".") { names.append(name) }
        }
        for name in names.sorted() {
            let path = directory + "/" + name
            var status = stat()
            guard stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG, let text = readText(path) else { continue }
            configuration.entries += VPCDReaderConfiguration(parsing: text).entries
        }
        return configuration
    }

    /// The name pcscd gives the reader whose card connects to `port`, or nil when no entry has it.
    public func readerName(forPort port: UInt16) -> String? {
        for entry in entries where port >= entry.port && Int(port) < Int(entry.port) + Self.slotsPerEntry {
            let slot = Int(port - entry.port)
            return entry.friendlyName + " 00 " + (slot < 16 ? "0" : "") + String(slot, radix: 16, uppercase: true)
        }
        return nil
    }

    /// Every reader name with its port, in port order.
    public var readers: [(name: String, port: UInt16)] {
        entries.flatMap { entry in
            (0..<Self.slotsPerEntry).compactMap { slot -> (name: String, port: UInt16)? in
                let port = Int(entry.port) + slot
                guard port <= Int(UInt16.max), let name = readerName(forPort: UInt16(port)) else { return nil }
                return (name, UInt16(port))
            }
        }.sorted { $0.port < $1.port }
    }

    /// The port of `DEVICENAME /dev/null:PORT` (decimal, 0x hex or 0 octal, as `strtoul` reads
    /// it); vpcd's default for a bare `/dev/null`; nil for `HOST:PORT`, where the driver connects
    /// out to the card instead.
    static func port(ofDevice device: String) -> UInt16? {
        guard let colon = device.firstIndex(of: ":") else { return device == "/dev/null" ? defaultPort : nil }
        guard device[..<colon] == "/dev/null" else { return nil }
        let text = device[device.index(after: colon)...]
        let value: UInt64?
        if text.hasPrefix("0x") || text.hasPrefix("0X") {
            value = UInt64(text.dropFirst(2), radix: 16)
        } else if text.hasPrefix("0"), text.count > 1 {
            value = UInt64(text.dropFirst(), radix: 8)
        } else {
            value = UInt64(text)
        }
        guard let value, value > 0, value <= UInt64(UInt16.max) else { return nil }
        return UInt16(value)
    }

    private static func readText(_ path: String) -> String? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        return (try? POSIX.readToEnd(descriptor)).map { String(decoding: $0, as: UTF8.self) }
    }
}

extension Substring {
    fileprivate var trimmingWhitespace: Substring {
        var text = self
        while text.first?.isWhitespace == true { text = text.dropFirst() }
        while text.last?.isWhitespace == true { text = text.dropLast() }
        return text
    }
}

#if canImport(Glibc)
import Glibc
#endif
import TestSupport
import Testing
import VirtualReader

@Suite("pcscd's vpcd reader configuration")
struct VPCDReaderConfigurationTests {
    /// Debian's /etc/reader.conf.d/vpcd, byte for byte.
    static let debian = """
        FRIENDLYNAME "Virtual PCD"
        DEVICENAME   /dev/null:0x8C7B
        LIBPATH      /usr/lib/pcsc/drivers/serial/libifdvpcd.so
        CHANNELID    0x8C7B

        """

    /// What `setup.sh --readers 6` writes.
    static let six = debian + """

        # readers 3 and 4 (setup.sh --readers 6): ports 35965 and 35966
        FRIENDLYNAME "Virtual PCD 1"
        DEVICENAME   /dev/null:0x8C7D
        LIBPATH      /usr/local/lib/arculus-card/vpcd/libifdvpcd-1.so
        CHANNELID    0x8C7D

        # readers 5 and 6 (setup.sh --readers 6): ports 35967 and 35968
        FRIENDLYNAME "Virtual PCD 2"
        DEVICENAME   /dev/null:0x8C7F
        LIBPATH      /usr/local/lib/arculus-card/vpcd/libifdvpcd-2.so
        CHANNELID    0x8C7F

        """

    @Test func debiansTwoReaders() {
        let configuration = VPCDReaderConfiguration(parsing: Self.debian)
        #expect(configuration.readerName(forPort: 35963) == "Virtual PCD 00 00")
        #expect(configuration.readerName(forPort: 35964) == "Virtual PCD 00 01")
        #expect(configuration.readerName(forPort: 35965) == nil)
        #expect(configuration.readerName(forPort: 35962) == nil)
    }

    @Test(arguments: [(UInt16(35965), "Virtual PCD 1 00 00"), (35966, "Virtual PCD 1 00 01"), (35967, "Virtual PCD 2 00 00"),
                      (35968, "Virtual PCD 2 00 01")])
    func readersSetupAdds(port: UInt16, name: String) {
        #expect(VPCDReaderConfiguration(parsing: Self.six).readerName(forPort: port) == name)
    }

    @Test func everyReaderInPortOrder() {
        let readers = VPCDReaderConfiguration(parsing: Self.six).readers
        #expect(readers.map(\.port) == Array(35963...35968))
        #expect(readers.first?.name == "Virtual PCD 00 00")
        #expect(readers.last?.name == "Virtual PCD 2 00 01")
    }

    /// The port as strtoul reads it (vpcd's own parsing), or vpcd's default without one.
    @Test(arguments: [("/dev/null:0x8C7B", UInt16?(35963)), ("/dev/null:35990", 35990), ("/dev/null:0106173", 35963),
                      ("/dev/null", 35963), ("localhost:35963", nil), ("/dev/null:0", nil), ("/dev/null:70000", nil),
                      ("/dev/null:0xZZ", nil)])
    func devicePorts(device: String, port: UInt16?) {
        let text = "FRIENDLYNAME \"R\"\nDEVICENAME \(device)\nLIBPATH /x/libifdvpcd.so\n"
        #expect(VPCDReaderConfiguration(parsing: text).entries.first?.port == port)
    }

    @Test func otherDriversAndIncompleteEntriesAreNotVPCD() {
        let text = """
            # Gemalto reader with serial communication (Debian's libccidtwin, all commented out)
            #DEVICENAME        /dev/ttySn[:reader]
            #FRIENDLYNAME      "GemPCTwin serial"
            FRIENDLYNAME "A twin"
            DEVICENAME   /dev/ttyS0
            LIBPATH      /usr/lib/pcsc/drivers/serial/libccidtwin.so
            FRIENDLYNAME "No library"
            DEVICENAME   /dev/null:0x8C7B
            """
        #expect(VPCDReaderConfiguration(parsing: text).entries.isEmpty)
    }

    @Test func loadsEveryFileOfTheDirectory() throws {
        let directory = try TemporaryDirectory("reader-conf")
        for (name, text) in [("vpcd", Self.debian), ("other", Self.six.replacingOccurrences(of: Self.debian, with: "")),
                             (".hidden", "FRIENDLYNAME \"Hidden\"\nDEVICENAME /dev/null:40000\nLIBPATH /libifdvpcd.so\n")] {
            let file = try #require(fopen(directory.file(name), "w"))
            fputs(text, file)
            fclose(file)
        }
        let configuration = VPCDReaderConfiguration.load(directory: directory.path)
        #expect(configuration.readers.count == 6)
        #expect(configuration.readerName(forPort: 40000) == nil, "pcscd skips dot files")
        #expect(VPCDReaderConfiguration.load(directory: directory.file("missing")).entries.isEmpty)
    }
}

import CardCrypto
import Foundation

/// Loads the JSON vector files in Vectors/ beside this file (found through `#filePath`, like the
/// other test targets find `Fixtures/`).
enum VectorFile {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Vectors")

    static func load<T: Decodable>(_ name: String, as type: T.Type = T.self) throws -> T {
        try JSONDecoder().decode(T.self, from: Data(contentsOf: directory.appendingPathComponent(name)))
    }
}
